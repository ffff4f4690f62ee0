"""Trial 21 findings about ``cowork-judge try``.

- P-3: a container-layout rollout whose ``logs/agent`` holds the chat answer as ``answer.txt`` (a name the judge never
  reads) was told "/logs/agent of the rollout is not an artifact of this task: a separate verifier does not see it",
  then "nothing delivered … check --rollout". try now says the file is not read, which names are, and the ``mv``; the
  "not an artifact" line is kept for what the judge would read (JUDGE_RESPONSE_FILE), not for the agent's other logs.
- P-6: try's output never named ``cowork-judge report``; it now prints the command for the verifier folder it wrote.

The staging tests call `dryrun.stage`; the end-to-end one runs the real ``cowork-judge try`` in a child process,
sandboxed, against the simulator over HTTP, then the ``cowork-judge report`` command it printed.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from cowork_judge.install import dryrun
from cowork_judge.sim import DemoPolicy, SimServer
from install.test_try_output import shared_cache, try_cli
from install.test_try_trial4 import ANSWER, chat_task


def _rollout(root: Path, **files: str) -> Path:
    """A container-layout rollout: an empty ``app/output`` and ``logs/agent/<name>`` for each of `files`."""
    (root / "app" / "output").mkdir(parents=True)
    agent = root / "logs" / "agent"
    agent.mkdir(parents=True)
    for name, text in files.items():
        (agent / name.replace("_txt", ".txt")).write_text(text)
    return root


def _shared(task: Path) -> Path:
    """`task` with a shared verifier (no artifacts, no collect hook)."""
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace('environment_mode = "separate"', 'environment_mode = "shared"'))
    return task


def test_an_answer_txt_in_logs_agent_is_named_not_called_unseen(tmp_path):
    rollout = _rollout(tmp_path / "r", answer_txt=ANSWER)
    task = dryrun.read_task(chat_task(tmp_path))
    staged = dryrun.stage(task, dryrun.read_rollout(rollout), tmp_path / "out")
    assert staged.left_out == [], staged.left_out  # was ["/logs/agent"]: "not an artifact of this task"
    agent = rollout / "logs" / "agent"
    assert f"the rollout's logs/agent ({agent}) holds answer.txt, which the judge does not read" in staged.unread_agent
    assert "trajectory.json, final_answer.txt or response.txt there" in staged.unread_agent
    assert "[[verifier.collect]] hook carries only these" in staged.unread_agent
    assert staged.unread_agent.endswith(f"mv {agent / 'answer.txt'} {agent / 'final_answer.txt'}"), staged.unread_agent


def test_a_shared_verifier_gets_the_same_line_without_the_hook(tmp_path):
    rollout = _rollout(tmp_path / "r", answer_txt=ANSWER)
    task = dryrun.read_task(_shared(chat_task(tmp_path)))
    staged = dryrun.stage(task, dryrun.read_rollout(rollout), tmp_path / "out")
    assert "holds answer.txt, which the judge does not read" in staged.unread_agent
    assert "[[verifier.collect]]" not in staged.unread_agent


def test_a_separate_verifier_without_inits_hook_is_told_to_run_init(tmp_path):
    rollout = _rollout(tmp_path / "r", answer_txt=ANSWER)
    task = chat_task(tmp_path)
    toml = task / "task.toml"
    toml.write_text(toml.read_text().split("[[verifier.collect]]")[0])  # init's hook is the last table it writes
    info = dryrun.read_task(task)
    assert info.separate and not info.collect_agent
    staged = dryrun.stage(info, dryrun.read_rollout(rollout), tmp_path / "out")
    assert staged.left_out == ["/logs/agent"]  # true and useful there: nothing of /logs/agent reaches the verifier
    assert "holds answer.txt, which the judge does not read" in staged.unread_agent
    assert "gets none of them without init's [[verifier.collect]] hook: run `cowork-judge init`" in staged.unread_agent


def test_harbors_oracle_log_is_named_and_a_message_file_silences_the_line(tmp_path):
    oracle = _rollout(tmp_path / "oracle", oracle_txt=ANSWER)
    (oracle / "logs" / "agent" / "command-0").mkdir()
    task = dryrun.read_task(chat_task(tmp_path))
    line = dryrun.stage(task, dryrun.read_rollout(oracle), tmp_path / "o1").unread_agent
    assert "holds oracle.txt, which the judge does not read" in line and "if oracle.txt is the final message" in line
    good = _rollout(tmp_path / "good", final_answer_txt=ANSWER, answer_txt=ANSWER)
    staged = dryrun.stage(task, dryrun.read_rollout(good), tmp_path / "o2")
    assert staged.unread_agent == "" and staged.left_out == []


def test_a_judge_response_file_in_logs_agent_is_read_so_not_unread_and_unseen_when_separate(tmp_path):
    rollout = _rollout(tmp_path / "r", answer_txt=ANSWER)
    task = dryrun.read_task(chat_task(tmp_path))
    staged = dryrun.stage(task, dryrun.read_rollout(rollout), tmp_path / "o1", response_file="/logs/agent/answer.txt")
    assert staged.unread_agent == ""
    assert staged.left_out == ["/logs/agent/answer.txt (JUDGE_RESPONSE_FILE; the task's [[verifier.collect]] hook "
                               "carries only trajectory.json, final_answer.txt, response.txt)"], staged.left_out
    elsewhere = dryrun.stage(task, dryrun.read_rollout(rollout), tmp_path / "o2", response_file="/app/output/reply.md")
    assert elsewhere.unread_agent == "" and elsewhere.left_out == []


def test_try_names_answer_txt_then_judges_it_renamed(tmp_path, sandbox_ready):
    task = chat_task(tmp_path)
    rollout = _rollout(tmp_path / "r", answer_txt=ANSWER)
    cache = shared_cache(tmp_path / "cache")
    with SimServer(DemoPolicy()) as sim:
        env = {"JUDGE_BASE_URL": sim.url, "JUDGE_API_KEY": "sk-sim-rehearsal"}
        first = try_cli(str(task), "--rollout", str(rollout), "--out", str(tmp_path / "o1"), cache=cache,
                        tmpdir=tmp_path / "tmp", env=env)
        said = first.stdout + first.stderr
        assert first.returncode == 0, said
        assert "not an artifact" not in said, said
        assert "nothing delivered:" in said and "check --rollout" not in said, said
        assert "holds answer.txt, which the judge does not read" in said, said
        mv = re.search(r"mv (\S+) (\S+)$", said, flags=re.MULTILINE)
        assert mv and mv.groups() == (str(rollout / "logs/agent/answer.txt"), str(rollout / "logs/agent/final_answer.txt"))
        (rollout / "logs/agent/answer.txt").rename(rollout / "logs/agent/final_answer.txt")
        again = try_cli(str(task), "--rollout", str(rollout), "--out", str(tmp_path / "o2"), cache=cache,
                        tmpdir=tmp_path / "tmp", env=env)
    assert again.returncode == 0 and "nothing delivered" not in again.stdout + again.stderr, again.stdout + again.stderr
    doc = json.loads((tmp_path / "o2" / "logs" / "verifier" / "result.json").read_text())
    assert doc["details"]["delivery"]["final_message_source"] == "final_answer.txt" and doc["reward"] > 0, doc["details"]


def test_try_prints_the_report_command_of_its_verifier_folder_and_it_works(tmp_path, sandbox_ready):
    """P-6: under the documents, one line with the real path (no --out: the temp folder it keeps the documents in)."""
    task = chat_task(tmp_path)
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER)
    with SimServer(DemoPolicy()) as sim:
        proc = try_cli(str(task), "--final-message", str(answer), cache=shared_cache(tmp_path / "cache"),
                       tmpdir=tmp_path / "tmp", env={"JUDGE_BASE_URL": sim.url, "JUDGE_API_KEY": "sk-sim-rehearsal"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    said = re.search(r"^report page: (cowork-judge report (\S+)) \(writes report\.html there", proc.stdout, flags=re.MULTILINE)
    assert said, proc.stdout
    verifier = Path(said.group(2))
    assert verifier.is_relative_to(tmp_path / "tmp") and (verifier / "result.json").is_file(), said.group(0)
    page = subprocess.run([sys.executable, "-m", "cowork_judge", *said.group(1).split()[1:]], capture_output=True,
                          text=True, timeout=120)
    assert page.returncode == 0 and (verifier / "report.html").is_file(), page.stdout + page.stderr
