"""Run by `test_verifier.py` under Harbor's own Python (3.12, Harbor 0.26 installed): `RubricVerifier` against a
real `harbor.models.task.task.Task` of a multi-step task and a stand-in environment. Prints one JSON line."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from harbor.models.task.task import Task
from harbor.models.trial.paths import TrialPaths

from cowork_judge.harbor import RubricVerifier, staging

TASK_TOML = """\
version = "1.0"

[verifier]
timeout_sec = 100.0

[verifier.env]
JUDGE_MODEL = "${H36_TEST_MODEL:-task-model}"
JUDGE_SKIP = "1"

[environment]
workdir = "/app"

[[steps]]
name = "draft"

[steps.verifier]
timeout_sec = 50.0

[steps.verifier.env]
JUDGE_MODEL = "step-model"
"""


class StandIn:
    """The environment calls `RubricVerifier` makes: exec (the path probe) and the downloads."""

    def __init__(self, root: Path, fail: bool = False) -> None:
        self.root, self.fail, self.commands = root, fail, []

    async def exec(self, command, cwd=None, env=None, timeout_sec=None, user=None):
        self.commands.append({"command": command, "env": env})
        if self.fail:
            raise RuntimeError("stand-in environment failure")
        path = command.split("[ -d ", 1)[1].split(" ]", 1)[0].strip("'")
        host = self.root / path.lstrip("/")
        word = "dir" if host.is_dir() else "file" if host.is_file() else "none"

        class Result:
            return_code, stdout, stderr = 0, word + "\n", ""
        return Result()

    async def download_dir(self, source_dir, target_dir):
        import shutil

        shutil.copytree(self.root / source_dir.lstrip("/"), target_dir, dirs_exist_ok=True)

    async def download_file(self, source_path, target_path):
        import shutil

        shutil.copy2(self.root / source_path.lstrip("/"), target_path)


def main(work: Path, tests_src: Path) -> None:
    import shutil

    task_dir = work / "task"
    (task_dir / "steps" / "draft" / "tests").mkdir(parents=True)
    (task_dir / "environment").mkdir()
    (task_dir / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\n")
    (task_dir / "steps" / "draft" / "instruction.md").write_text("Draft it.\n")
    (task_dir / "instruction.md").write_text("Do it.\n")
    (task_dir / "task.toml").write_text(TASK_TOML)
    shutil.copytree(tests_src, task_dir / "tests")
    (task_dir / "steps" / "draft" / "tests" / "task_prompt.md").write_text("the step's prompt\n")
    task = Task(task_dir)
    out: dict = {}
    sandbox = work / "sandbox"
    (sandbox / "app" / "output").mkdir(parents=True)
    (sandbox / "app" / "output" / "answer.md").write_text("an answer\n")
    for name, fail in (("ok", False), ("fail", True)):
        trial = TrialPaths(work / f"trial-{name}")
        trial.mkdir()
        env = StandIn(sandbox, fail=fail)
        verifier = RubricVerifier(task=task, trial_paths=trial, environment=env, step_name="draft",
                                  verifier_env=dict(task.config.steps[0].verifier.env), python=sys.executable)
        out[name] = {"sources": [str(p.relative_to(task_dir)) for p in verifier.tests_sources()],
                     "timeout": verifier.timeout_sec(), "env": verifier.resolved_env()}
        try:
            result = asyncio.run(verifier.verify())
            out[name]["rewards"] = result.rewards
        except staging.SkippedReward as exc:
            out[name]["raised"] = f"SkippedReward: {exc}"
        out[name]["files"] = sorted(p.name for p in trial.verifier_dir.iterdir())
        out[name]["result"] = json.loads((trial.verifier_dir / "result.json").read_text()) \
            if (trial.verifier_dir / "result.json").is_file() else None
        out[name]["commands"] = env.commands
        staged = (work / f"trial-{name}" / "verifier" / "test-stdout.txt")
        out[name]["stdout"] = staged.read_text()[-2000:] if staged.is_file() else ""
    print(json.dumps(out))


if __name__ == "__main__":
    os.environ.pop("H36_TEST_MODEL", None)
    main(Path(sys.argv[1]), Path(sys.argv[2]))
