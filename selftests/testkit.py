"""Shared test constants and result types (a uniquely named module: `conftest` names clash
across test subdirectories)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cowork_judge.sim import SimServer

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "selftests" / "fixtures"
"""Real public inputs shipped with the tests (`selftests/fixtures/SOURCES.md`)."""
DECKS = FIXTURES / "decks"
EXAMPLE_TESTS = REPO / "tests"
ROLLOUTS = REPO / "examples" / "rollouts"
HEALTHBENCH_EXAMPLE = REPO / "examples" / "healthbench-bbd759b4"
SIM_KEY = "sk-sim-test-key-0123456789"


@dataclass
class RunResult:
    """What one end-to-end run left behind."""

    returncode: int
    seconds: float
    stdout: str
    stderr: str
    verifier: Path
    work: Path
    sim: SimServer | None

    @property
    def reward_text(self) -> str:
        return (self.verifier / "reward.txt").read_text()

    @property
    def reward(self) -> float:
        return float(self.reward_text)

    @property
    def doc(self) -> dict[str, Any]:
        return json.loads((self.verifier / "result.json").read_text())

    @property
    def verdicts(self) -> dict[str, dict[str, Any]]:
        return {r["id"]: r for r in self.doc["results"]}

    @property
    def model_requests(self) -> int:
        return 0 if self.sim is None else len(self.sim.log)




def make_ctx(tmp_path: Path, files: dict[str, bytes | str] | None = None, *, env: dict[str, str] | None = None,
             final_message: str | None = None, workflow_config: dict[str, Any] | None = None,
             app_files: dict[str, bytes | str] | None = None) -> Any:
    """A real `RunContext` over a temp layout: `files` go to app/output, `app_files` to the app root."""
    from cowork_judge.safety.redact import Redactor
    from cowork_judge.config.judge_config import load_config
    from cowork_judge.run.context import RunContext
    from cowork_judge.run.collect import collect_delivery
    from cowork_judge.run.paths import RunPaths
    from cowork_judge.segment.audit import AuditLog
    from cowork_judge.segment.deadline import Deadline

    paths = RunPaths.of_environment(app_dir=tmp_path / "app", logs_dir=tmp_path / "logs", tests_dir=tmp_path / "tests",
                             work_dir=tmp_path / "work", alt_output_dir=tmp_path / "alt", environ={})
    for base, content in ((paths.output_dir, files or {}), (paths.app_dir, app_files or {})):
        for rel, data in content.items():
            target = base / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data.encode() if isinstance(data, str) else data)
    paths.work_dir.mkdir(parents=True, exist_ok=True)
    config = load_config(env or {}).config
    delivery = collect_delivery(paths, config)
    if final_message is not None:
        delivery = delivery.model_copy(update={"final_message": final_message})
    redactor = Redactor([])
    return RunContext(paths=paths, config=config, instruction="judge", instruction_source="test", task_prompt="",
                      delivery=delivery, deadline=Deadline.after(config.deadline_sec), redactor=redactor,
                      audit=AuditLog(paths.audit_dir, redactor), workflow_config=workflow_config or {})


def code_only_task(root: Path) -> list[str]:
    """A rollout at `root` (``app/output/report.md``) with a one-row code-only rubric
    (``file_exists *.md``: reward 1.0, no model call); returns the ``cowork-judge run``
    arguments that judge it into ``root/logs``."""
    import json

    tests, output = root / "tests", root / "app" / "output"
    tests.mkdir(parents=True)
    output.mkdir(parents=True)
    (output / "report.md").write_text("# Report\n")
    rows = [{"id": "C1", "description": "a report", "weight": 1, "judge_method": "code", "code_method_name": "file_exists",
             "code_method_params": {"glob": "*.md"}}]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    return ["--app-dir", str(root / "app"), "--tests-dir", str(tests), "--logs-dir", str(root / "logs")]


def write_files(root: Path, files: dict[str, str | bytes]) -> Path:
    """Writes each entry of `files` (a path relative to `root` → its text or bytes) under `root`, making the
    folders it needs; returns `root`."""
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            target.write_bytes(data)
        else:
            target.write_text(data)
    return root


def write_rubric(tests: Path, rubric: list[dict[str, Any]] | dict[str, Any], *, indent: int | None = None) -> Path:
    """A tests folder at `tests` (made with its parents, must not exist; returned) holding only ``rubric.json``:
    `rubric` a list of rows, written under ``"rubrics"``, or a whole document; `indent` as `json.dumps` takes it."""
    doc = {"rubrics": rubric} if isinstance(rubric, list) else rubric
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps(doc, indent=indent), encoding="utf-8")
    return tests


def write_task(task: Path, rubric: list[dict[str, Any]] | dict[str, Any], prompt: str, *, instruction: str | None = None,
               indent: int | None = None, files: dict[str, str | bytes] | None = None) -> Path:
    """A task folder at `task` (returned): ``tests/rubric.json`` (`rubric`: a list of rows, written under
    ``"rubrics"``, or a whole document; `indent` as `json.dumps` takes it), ``tests/task_prompt.md`` (`prompt`),
    ``instruction.md`` (`instruction`; left out when None) and `files` (paths relative to `task`, `write_files`)."""
    write_rubric(task / "tests", rubric, indent=indent)
    (task / "tests" / "task_prompt.md").write_text(prompt)
    if instruction is not None:
        (task / "instruction.md").write_text(instruction)
    return write_files(task, files or {})


def sim_oracle_stderr(oracle: Path) -> str:
    """What ``python -m cowork_judge.sim --port 0 --oracle ORACLE`` (a child process) wrote on stderr by the time it
    said it was listening (asserted, within 30 s); the simulator is then stopped."""
    with subprocess.Popen([sys.executable, "-m", "cowork_judge.sim", "--port", "0", "--oracle", str(oracle)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        try:
            ready, _, _ = select.select([proc.stdout], [], [], 30)
            assert ready and "listening" in proc.stdout.readline()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        return proc.stderr.read()


def without_deck_extras(tmp_path: Path) -> dict[str, str]:
    """Environment entries for a child ``cowork-judge`` process in which ``lxml`` and ``python-pptx`` cannot be imported
    (a verifier without the deck extras): a ``sitecustomize`` written under `tmp_path`/no-extras, put first on the
    child's ``PYTHONPATH`` (this process's ``PYTHONPATH`` after it)."""
    blocker = tmp_path / "no-extras"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text("import sys\nfor m in ('lxml', 'pptx'):\n    sys.modules[m] = None\n")
    return {"PYTHONPATH": os.pathsep.join(p for p in (str(blocker), os.environ.get("PYTHONPATH", "")) if p)}


def lint_stdout(target: Path) -> str:
    """What ``cowork-judge lint TARGET`` (a child process) printed on stdout; asserts it exited 0 or 1 (findings),
    not with an error."""
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(target)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout


def run_cli(app: Path, logs: Path, tests: Path) -> subprocess.CompletedProcess[str]:
    """``cowork-judge run --app-dir APP --logs-dir LOGS --tests-dir TESTS`` in a child process running this checkout's
    ``src`` with none of the caller's JUDGE_/OPENAI_/COWORK_ settings, no start jitter and no evidence (code rows)."""
    env = clean_env(PYTHONPATH=str(REPO / "src"), PYTHONDONTWRITEBYTECODE="1", JUDGE_START_JITTER="0",
                    JUDGE_EVIDENCE="0")
    return subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(app), "--logs-dir", str(logs),
                           "--tests-dir", str(tests)], env=env, capture_output=True, text=True, timeout=120)


def verifier_result(logs: Path) -> dict[str, Any]:
    """The ``verifier/result.json`` a run wrote under its logs folder `logs`, parsed."""
    return json.loads((logs / "verifier" / "result.json").read_text())


def skip_without_soffice() -> None:
    """Skips the calling test (with the reason) where LibreOffice is not available."""
    from cowork_judge.evidence import probe_capabilities

    caps = probe_capabilities()
    if not caps.soffice.available:
        pytest.skip(f"LibreOffice unavailable: {caps.soffice.reason}")


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without any JUDGE_/OPENAI_/COWORK_ setting, plus `extra`."""
    import os

    return {**{k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}, **extra}


def judge_agentic_alone(rows: Any, ctx: Any) -> Any:
    """The agentic segment (`agentic.dispatch.judge_agentic`) run alone on the run context
    `ctx`, as the router runs it: inside the scope that holds the run's call paths open
    (`segment.judges.calls_opened`), which closes the clients when it ends (the segment opens
    no scope of its own)."""
    from cowork_judge.agentic.dispatch import judge_agentic
    from cowork_judge.segment.judges import calls_opened

    with calls_opened(ctx.calls, ctx.sampling):
        return judge_agentic(rows, ctx.segment())


def agentic_example(dest: Path) -> Path:
    """The example instance without its ``ppt_judge`` rows and assets, written to ``dest``
    (returned): its code and agentic rows only, for tests of the agentic segment that run
    with ``JUDGE_EVIDENCE=0`` (the ppt_judge rows judge the rendered deck: without
    rendering they are unjudged ``render_env``)."""
    import shutil

    shutil.copytree(EXAMPLE_TESTS, dest, ignore=shutil.ignore_patterns("workflow_assets"))
    doc = json.loads((dest / "rubric.json").read_text())
    doc["rubrics"] = [r for r in doc["rubrics"] if r.get("workflow_name") != "ppt_judge"]
    doc.pop("workflow_config", None)
    (dest / "rubric.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    return dest


def deck(name: str) -> Path:
    """Path of a fixture deck; skips the test when the fixtures folder is absent."""
    import pytest

    path = DECKS / name
    if not path.is_file():
        pytest.skip(f"fixture deck not found: {path}")
    return path


def held_workflow_call(ctx: Any, budget_sec: float) -> Exception:
    """One workflow call of `ctx`'s run (a stub workflow) with `budget_sec` seconds of budget,
    expected to fail (the run's limiter holds it): the `ModelCallFailed` it raised."""
    import threading
    import time

    import pytest

    from cowork_judge.workflow._contract import ModelCallFailed
    from cowork_judge.workflow.runner import workflow_calls

    calls = workflow_calls(ctx.segment())
    caller = calls.caller("stub", ctx.audit.scoped("workflow-stub"), cancel=threading.Event(),
                          budget_end=time.monotonic() + budget_sec)
    try:
        with pytest.raises(ModelCallFailed) as failed:
            caller.complete([{"role": "user", "content": "Criteria:\n1. the report states fact 1"}], label="probe")
    finally:
        calls.close()
    return failed.value


ORIGINAL_SPEC = "cowork-judge[workflow]==1.3.6"
"""The original 1.3.6 from the registry, with the extras its deck judging needs (python-pptx,
PyMuPDF, openai...)."""


def original_python() -> Path:
    """The python of a venv holding the original ``cowork-judge`` 1.3.6 from the registry
    (``ORIGINAL_SPEC``), created once under ``$COWORK_SELFTEST_CACHE/orig-1.3.6`` (default
    ``~/.cache/cowork-judge-selftests``) and reused.

    Skips the calling test (with pip's last words) when the registry is unreachable.
    """
    root = Path(os.environ.get("COWORK_SELFTEST_CACHE") or Path.home() / ".cache" / "cowork-judge-selftests")
    venv = root / "orig-1.3.6"
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import importlib.metadata as m; assert m.version('cowork-judge') == '1.3.6'; "
                                "import pptx, fitz, openai"]
    if python.exists() and subprocess.run(probe, capture_output=True, check=False).returncode == 0:
        return python
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    proc = subprocess.run([str(python), "-m", "pip", "install", "-q", ORIGINAL_SPEC],
                          capture_output=True, text=True, timeout=900, check=False)
    if proc.returncode != 0:
        pytest.skip(f"the registry is not reachable for {ORIGINAL_SPEC}: {proc.stderr.strip()[-300:]}")
    return python
