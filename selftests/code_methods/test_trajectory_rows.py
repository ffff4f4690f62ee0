"""Issue 37, rows about what the agent did: the ATIF trajectory read once (`segment.trajectory`),
code methods over it (zero model calls) and the `trajectory_judge` workflow (a model judges the
trimmed trajectory, quotes checked against the text sent), on a REAL public trajectory of
Harbor's terminus-2 agent (`selftests/fixtures/trajectories/`, SOURCES.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from testkit import EXAMPLE_TESTS, FIXTURES, REPO

from cowork_judge.segment.trajectory import parse_trajectory, trajectory_text
from cowork_judge.sim.quotes import Fabricate

TERMINUS = FIXTURES / "trajectories" / "terminus-2-hello-world-invalid-json.trajectory.json"

CODE_ROWS = [
    {"id": "T-TOOL", "description": "The agent ran a shell command that names hello.txt", "weight": 1,
     "judge_method": "code", "code_method_name": "tool_called",
     "code_method_params": {"name": "bash_command", "args_contain": "hello.txt"}},
    {"id": "T-WRITE", "description": "hello.txt was written before the final message", "weight": 1,
     "judge_method": "code", "code_method_name": "file_written_before_final", "code_method_params": {"glob": "hello.txt"}},
    {"id": "T-STEPS", "description": "At most 10 agent steps", "weight": 1,
     "judge_method": "code", "code_method_name": "step_count_at_most", "code_method_params": {"max_steps": 10}},
    {"id": "T-ERR", "description": "No step errored", "weight": 1, "judge_method": "code",
     "code_method_name": "no_step_errored", "code_method_params": {"error_patterns": ["(?m)^ERROR:"]}},
    {"id": "T-CMD", "description": "printf ran and exited 0", "weight": 1, "judge_method": "code",
     "code_method_name": "command_succeeded", "code_method_params": {"pattern": "printf"}},
]
JUDGED_ROW = {"id": "J-FIX", "description": "After its reply was rejected, the agent corrected the format and created "
                                            "hello.txt with printf", "weight": 2,
              "judge_method": "workflow", "workflow_name": "trajectory_judge"}


def _tests(tmp_path, rows):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    shutil.copy(EXAMPLE_TESTS / "judge_instruction.md", tests)
    return tests


def _rollout(tmp_path, trajectory=TERMINUS):
    rollout = tmp_path / "rollout"
    (rollout / "app" / "output").mkdir(parents=True)
    (rollout / "app" / "output" / "hello.txt").write_text("Hello, world!\n")
    (rollout / "logs" / "agent").mkdir(parents=True)
    if trajectory is not None:
        shutil.copy(trajectory, rollout / "logs" / "agent" / "trajectory.json")
    return rollout


def test_the_fixture_is_atif_by_harbors_own_model():
    """The fixture validates against Harbor's `harbor.models.trajectories.Trajectory` (Python 3.12 venv:
    ``$HARBOR_BIN`` or ``.venv-harbor/bin/harbor``, as `selftests/install/test_harbor.py`)."""
    harbor = Path(os.environ.get("HARBOR_BIN") or REPO / ".venv-harbor" / "bin" / "harbor")
    python = harbor.parent / "python"
    if not python.is_file():
        pytest.skip(f"Harbor's venv is not installed beside {harbor} (set HARBOR_BIN)")
    code = ("import json,sys; from harbor.models.trajectories import Trajectory; "
            "t = Trajectory.model_validate(json.load(open(sys.argv[1]))); print(t.agent.name, len(t.steps))")
    out = subprocess.run([str(python), "-c", code, str(TERMINUS)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.split() == ["terminus-2", "5"], out.stderr[-2000:]


def test_the_real_terminus_trajectory_reads_with_step_numbers_calls_and_writes():
    traj = parse_trajectory(json.loads(TERMINUS.read_text()))
    assert traj.agent == "terminus-2" and [s.number for s in traj.steps] == [1, 2, 3, 4, 5]
    assert [c.name for _, c in traj.tool_calls()] == ["bash_command", "mark_task_complete", "mark_task_complete"]
    step3 = traj.steps[2]
    assert step3.tool_calls[0].written_paths() == ["hello.txt"] and step3.exit_codes() == []  # terminus records none
    assert traj.final_message_step().number == 5
    text, omitted = trajectory_text(traj, 1500)
    assert omitted and "[step 1] user" in text and "[step 5] agent" in text
    assert f"[steps {omitted[0]}–{omitted[-1]} omitted: {len(omitted)} steps]" in text
    whole, none = trajectory_text(traj)
    assert none == [] and all(f"[step {n}]" in whole for n in range(1, 6))


def test_code_rows_judge_the_real_trajectory_with_zero_model_calls(judge_run, tmp_path):
    run = judge_run(_tests(tmp_path, CODE_ROWS), _rollout(tmp_path))
    v = run.verdicts
    assert run.model_requests == 0
    assert v["T-TOOL"]["hit"] is True and "step 3" in v["T-TOOL"]["reason"]
    assert v["T-WRITE"]["hit"] is True and "step 3, before the final message (step 5)" in v["T-WRITE"]["reason"]
    assert v["T-STEPS"]["hit"] is True and "4 agent steps" in v["T-STEPS"]["reason"]
    assert v["T-ERR"]["hit"] is False and "step 2" in v["T-ERR"]["reason"]
    # terminus records no exit status: unjudged, never a guess
    assert v["T-CMD"]["judged"] is False and v["T-CMD"]["error_kind"] == "trajectory_missing"
    assert "no exit status" in v["T-CMD"]["reason"]


def test_the_judged_trajectory_row_quotes_the_trajectory_sent(judge_run, tmp_path):
    run = judge_run(_tests(tmp_path, [JUDGED_ROW]), _rollout(tmp_path), oracle={"J-FIX": {"hit": True, "reason": "step 3"}})
    v = run.verdicts["J-FIX"]
    assert v["judged"] and v["hit"] is True and v["grounded"] is True, v
    assert run.model_requests == 1
    [request] = run.sim.log
    assert request.row_ids == ["J-FIX"]
    items = request.answer_schema["properties"]["verdicts"]["items"]
    assert list(items["properties"])[:3] == ["id", "reason", "quote"]
    audit = "\n".join(p.read_text() for p in (run.verifier / "judge").rglob("*") if p.is_file())
    assert "[step 3] agent" in audit and "bash_command" in audit


def test_a_fabricated_quote_is_asked_again_once_then_ungrounded(judge_run, tmp_path):
    run = judge_run(_tests(tmp_path, [JUDGED_ROW]), _rollout(tmp_path), oracle={"J-FIX": {"hit": False}},
                    sim={"fabricate": Fabricate(1.0)}, env={"JUDGE_UNGROUNDED": "miss"})
    v = run.verdicts["J-FIX"]
    assert run.model_requests == 2  # the request and one re-ask
    assert v["grounded"] is False and "asked again once" in v["grounding"]
    assert run.reward == 0.0


def test_no_trajectory_leaves_trajectory_rows_unjudged_without_a_call(judge_run, tmp_path):
    run = judge_run(_tests(tmp_path, [CODE_ROWS[0], JUDGED_ROW]), _rollout(tmp_path, trajectory=None))
    for rid in ("T-TOOL", "J-FIX"):
        assert run.verdicts[rid]["error_kind"] == "trajectory_missing", run.verdicts[rid]
    assert run.model_requests == 0


def _one_step(**step):
    return parse_trajectory({"schema_version": "ATIF-v1.6", "steps": [{"step_id": 7, "source": "agent", **step}]}).steps[0]


@pytest.mark.parametrize("step, codes, errored", [
    ({"observation": {"results": [{"content": '{"output": "ok", "metadata": {"exit_code": 0}}'}]}}, [0], None),
    ({"observation": {"results": [{"content": "Process exited with code 2"}]}}, [2], "exit status 2"),
    ({"extra": {"exit_code": 1}}, [1], "exit status 1"),
    # where Harbor 0.26's converters put them: codex's tool metadata, claude-code's tool result
    ({"extra": {"tool_metadata": {"exit_code": 0, "duration_seconds": 0.4}, "status": "completed"}}, [0], None),
    ({"observation": {"results": [{"source_call_id": "t1", "content": "[stderr]\nboom\n[exit_code] 1",
                                   "extra": {"tool_result_metadata": {"tool_use_result": {"exitCode": 1}},
                                             "tool_result_is_error": True}}]}}, [1], "observation extra: tool_result_is_error is true"),
    ({"observation": {"results": [{"content": "[error] tool reported failure"}]}}, [],
     "an observation says the tool reported failure"),
    ({"extra": {"is_error": True}}, [], "step extra: is_error is true"),
    ({"observation": {"results": [{"content": "all good"}]}}, [], None),
])
def test_exit_statuses_and_errors_are_read_where_agents_record_them(step, codes, errored):
    s = _one_step(**step)
    assert s.exit_codes() == codes and s.errored() == errored


@pytest.mark.parametrize("call, paths", [
    ({"function_name": "Write", "arguments": {"file_path": "/app/output/report.md", "content": "x"}}, ["/app/output/report.md"]),
    ({"function_name": "str_replace_editor", "arguments": {"command": "view", "path": "/app/a.py"}}, []),
    ({"function_name": "str_replace_editor", "arguments": {"command": "create", "path": "/app/a.py"}}, ["/app/a.py"]),
    ({"function_name": "apply_patch", "arguments": {"input": "*** Begin Patch\n*** Add File: out/b.txt\n+hi\n*** End Patch"}},
     ["out/b.txt"]),
    ({"function_name": "shell", "arguments": {"command": ["bash", "-lc", "echo hi | tee -a log.txt > /dev/null"]}}, ["log.txt"]),
])
def test_written_paths_of_tool_calls(call, paths):
    assert list(_one_step(tool_calls=[call]).tool_calls[0].written_paths()) == paths


def _codex_like(tmp_path, exits):
    """A trajectory shaped as Harbor's codex converter writes it: one call per step, the exit
    status in ``extra.tool_metadata`` (synthetic: no public codex ATIF trajectory was found)."""
    steps = [{"step_id": 1, "source": "user", "message": "run the tests"}]
    for n, code in enumerate(exits, start=2):
        steps.append({"step_id": n, "source": "agent", "message": "",
                      "tool_calls": [{"tool_call_id": f"c{n}", "function_name": "exec_command",
                                      "arguments": {"cmd": f"pytest -q tests/{n}"}}],
                      "observation": {"results": [{"source_call_id": f"c{n}", "content": "..."}]},
                      "extra": {"tool_metadata": {"exit_code": code}}})
    steps.append({"step_id": len(steps) + 1, "source": "agent", "message": "done"})
    logs = tmp_path / "logs" / "agent"
    logs.mkdir(parents=True)
    (logs / "trajectory.json").write_text(json.dumps({"schema_version": "ATIF-v1.7", "agent": {"name": "codex"},
                                                      "steps": steps}))
    from testkit import make_ctx
    return make_ctx(tmp_path).segment()


@pytest.mark.parametrize("exits, hit, cited", [([1, 0], True, "step 3"), ([2, 1], False, "exited 1 (step 3)"), ([0, 1], False, "exited 1 (step 3)")])
def test_command_succeeded_reads_each_call_exit_status(tmp_path, exits, hit, cited):
    from cowork_judge.code_methods import CODE_METHODS
    ok, reason, _ = CODE_METHODS["command_succeeded"](_codex_like(tmp_path, exits), pattern=r"pytest\b")
    assert ok is hit and cited in reason, reason


def test_the_verdict_cache_keys_a_judged_trajectory_row_on_the_trajectory(judge_run, tmp_path):
    """Same deliverables and final message, another trajectory: the cached verdict must not be reused."""
    tests, cache = _tests(tmp_path, [JUDGED_ROW]), tmp_path / "cache"
    oracle = {"J-FIX": {"hit": True}}
    env = {"JUDGE_VERDICT_CACHE": str(cache)}
    first = judge_run(tests, _rollout(tmp_path), oracle=oracle, env=env)
    again = judge_run(tests, tmp_path / "rollout", oracle=oracle, env=env)
    assert first.model_requests == 1 and again.model_requests == 0 and again.verdicts["J-FIX"].get("cached")
    doc = json.loads(TERMINUS.read_text())
    doc["steps"][2]["tool_calls"][0]["arguments"]["keystrokes"] = "echo nope\n"  # the same final message
    (tmp_path / "rollout" / "logs" / "agent" / "trajectory.json").write_text(json.dumps(doc))
    changed = judge_run(tests, tmp_path / "rollout", oracle=oracle, env=env)
    assert changed.model_requests == 1 and not changed.verdicts["J-FIX"].get("cached")


class _Scripted:
    """A workflow transport answering from a script and recording each request."""

    limit = 1

    def __init__(self, replies):
        self.replies, self.requests = list(replies), []

    def complete(self, messages, *, label, response_format=None, timeout_sec=None):
        from cowork_judge.workflow._contract import ModelReply
        self.requests.append((label, messages))
        return ModelReply(json.dumps(self.replies.pop(0)))


def test_a_quote_of_the_task_in_a_user_step_does_not_ground_a_trajectory_verdict():
    """The first user step carries the task prompt: a quote found only there counts for nothing."""
    import threading
    from types import SimpleNamespace

    from cowork_judge.core.rubric import normalize_rubric
    from cowork_judge.workflow._contract import WorkflowContext
    from cowork_judge.workflow.trajectory_judge import run

    crit = normalize_rubric([JUDGED_ROW]).criteria
    task_quote = 'Create a file called hello.txt with "Hello, world!" as the content.'
    agent_quote = "printf 'Hello, world!\\n' > hello.txt"
    for quote, grounded, calls in ((task_quote, False, 2), (agent_quote, True, 1)):
        transport = _Scripted([{"verdicts": [{"id": "J-FIX", "reason": "r", "quote": quote, "hit": True, "level": None}]}] * 2)
        ctx = WorkflowContext(name="trajectory_judge", settings={}, artifacts={}, evidence_dir=TERMINUS.parent,
                              work_dir=TERMINUS.parent, deadline_at=1e18, cancel=threading.Event(), transport=transport,
                              audit=SimpleNamespace(append=lambda name, record: None),
                              delivery=SimpleNamespace(trajectory=parse_trajectory(json.loads(TERMINUS.read_text())),
                                                       unreadable=[]))
        [v] = run(list(crit), ctx, 60)
        assert v.grounded is grounded and len(transport.requests) == calls, (quote, v)


def test_one_huge_step_never_takes_the_whole_budget():
    calls = [{"tool_call_id": f"c{k}", "function_name": "bash", "arguments": {"command": "x" * 1500}} for k in range(60)]
    doc = {"steps": [{"step_id": 1, "source": "user", "message": "task"},
                     {"step_id": 2, "source": "agent", "message": "go", "tool_calls": calls},
                     {"step_id": 3, "source": "agent", "message": "done"}]}
    text, omitted = trajectory_text(parse_trajectory(doc), 8000)
    assert len(text) <= 8000 and omitted == [] and "[step 3] agent" in text and "characters cut" in text


def test_a_trajectory_past_the_search_limit_is_a_read_limit_judged_against_the_agent(tmp_path, monkeypatch):
    from cowork_judge.code_methods.code_rows import judge_code_row
    from cowork_judge.core.rubric import normalize_rubric
    from cowork_judge.safety import saferegex

    ctx = _codex_like(tmp_path, [0])
    monkeypatch.setattr(saferegex, "MAX_INPUT_CHARS", 5)
    [row] = normalize_rubric([CODE_ROWS[4]]).criteria
    verdict = judge_code_row(row, ctx).verdict
    assert verdict.judged and verdict.hit is False and verdict.reason.startswith("[read limit]"), verdict


def test_a_sampled_trajectory_row_is_asked_per_judge_and_folded(judge_run, tmp_path):
    run = judge_run(_tests(tmp_path, [JUDGED_ROW]), _rollout(tmp_path), oracle={"J-FIX": {"hit": True}},
                    env={"JUDGE_SAMPLES": "3"})
    v = run.verdicts["J-FIX"]
    assert v["judged"] and v["hit"] is True and len(v["samples"]) >= 2 and run.model_requests == len(v["samples"]), v
