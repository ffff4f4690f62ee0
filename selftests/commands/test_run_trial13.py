"""Trial 13, ``cowork-judge run`` by a new user: F2 (a logs or work dir inside the app's output
folder made the judge judge its own documents as deliverables: refused, exit 2, nothing written,
whether it comes from the flag or from JUDGE_LOGS_DIR / JUDGE_WORK_DIR, through a link or not),
F5 (a work dir that is a file: ``--work-dir`` refused, exit 2; ``JUDGE_WORK_DIR`` replaced by a
private temp folder with a warning — a chat run used to blame the endpoint, ``backend_error``)
and F4 (a run judged again into the same logs dir left the earlier ``report.html`` and
``result.rescored.json`` beside its new result: they are moved to ``verifier/set-aside/``).

Real ``python -m cowork_judge`` child processes (run, report, rescore); the chat run against the
simulator over HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import ROLLOUTS, SIM_KEY, agentic_example, clean_env, code_only_task

from cowork_judge.sim import DemoPolicy, SimServer

SRC = Path(__file__).resolve().parents[2] / "src"


def _cli(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = clean_env(PYTHONPATH=str(SRC), PYTHONDONTWRITEBYTECODE="1", JUDGE_START_JITTER="0", JUDGE_EVIDENCE="0")
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "cowork_judge", *argv], env=full, capture_output=True, text=True,
                          timeout=120)


def _instance(root: Path) -> tuple[Path, Path]:
    """(app dir, tests dir) of a one-row code-only rollout (``output/report.md``, reward 1.0)."""
    code_only_task(root)
    return root / "app", root / "tests"


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _doc(logs: Path) -> dict:
    return json.loads((logs / "verifier" / "result.json").read_text())


# F2: a logs or work dir inside the deliverables' folder


@pytest.mark.parametrize("flag, below", [("--logs-dir", "logs"), ("--logs-dir", ""), ("--work-dir", "work")],
                         ids=["logs-inside", "logs-is-output", "work-inside"])
def test_a_dir_the_judge_writes_inside_the_output_folder_is_refused(tmp_path, flag, below):
    app, tests = _instance(tmp_path)
    output = app / "output"
    before = _tree(output)
    inside = output / below if below else output
    argv = ["--app-dir", str(app), "--tests-dir", str(tests), flag, str(inside)]
    if flag == "--work-dir":
        argv += ["--logs-dir", str(tmp_path / "logs")]
    proc = _cli("run", *argv)
    assert proc.returncode == 2, proc.stderr
    where = "is" if not below else "is inside"
    what = flag.removeprefix("--").replace("-", " ")
    assert proc.stderr == (f"cowork-judge run: error: {flag} {inside} {where} {output}, the app's output folder (the "
                           "deliverables the judge reads): the judge would judge its own documents as the agent's; "
                           f"give a {what} outside {output}\n")
    assert _tree(output) == before and not (tmp_path / "logs").exists()  # nothing written


def test_a_link_into_the_output_folder_is_resolved_and_refused(tmp_path):
    app, tests = _instance(tmp_path)
    (tmp_path / "runs").symlink_to(app / "output")
    logs = tmp_path / "runs" / "r1"
    proc = _cli("run", "--app-dir", str(app), "--tests-dir", str(tests), "--logs-dir", str(logs))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"cowork-judge run: error: --logs-dir {logs} (it resolves to "
                                  f"{(app / 'output' / 'r1').resolve()}) is inside {app / 'output'}, the app's output folder")
    assert sorted(os.listdir(app / "output")) == ["report.md"]


@pytest.mark.parametrize("variable", ["JUDGE_LOGS_DIR", "JUDGE_WORK_DIR"])
def test_the_same_setting_from_the_environment_is_refused(tmp_path, variable):
    app, tests = _instance(tmp_path)
    inside = app / "output" / "judge"
    argv = ["--app-dir", str(app), "--tests-dir", str(tests)]
    if variable == "JUDGE_WORK_DIR":
        argv += ["--logs-dir", str(tmp_path / "logs")]
    proc = _cli("run", *argv, env={variable: str(inside)})
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"cowork-judge run: error: {variable} {inside} is inside {app / 'output'}, the app's "
                                  "output folder (the deliverables the judge reads)")
    assert len(proc.stderr.splitlines()) == 1
    assert sorted(os.listdir(app / "output")) == ["report.md"] and not (tmp_path / "logs").exists()


def test_a_logs_dir_in_the_lenient_alternate_output_folder_is_refused_only_under_lenient_delivery(tmp_path):
    app, tests = _instance(tmp_path)
    alt = tmp_path / "alt"
    alt.mkdir()
    argv = ["--app-dir", str(app), "--tests-dir", str(tests), "--alt-output-dir", str(alt), "--logs-dir", str(alt / "logs")]
    proc = _cli("run", *argv, env={"JUDGE_LENIENT_DELIVERY": "1"})
    assert proc.returncode == 2, proc.stderr
    assert f"is inside {alt}, the alternate output folder lenient delivery reads" in proc.stderr
    assert os.listdir(alt) == []
    strict = _cli("run", *argv)  # strict delivery never reads it: judged as before
    assert strict.returncode == 0, strict.stderr
    assert _doc(alt / "logs")["task_score"] == 1.0


# F5: a work dir that is a file


@pytest.mark.parametrize("tail, problem", [("", "is a file, not a folder"),
                                            ("sub/work", "cannot be made: {file} is a file, not a folder")],
                         ids=["file", "parent-is-file"])
def test_a_work_dir_flag_that_is_a_file_is_refused(tmp_path, tail, problem):
    app, tests = _instance(tmp_path)
    file = tmp_path / "scratch"
    file.write_text("mine\n")
    work = file / tail if tail else file
    proc = _cli("run", "--app-dir", str(app), "--tests-dir", str(tests), "--logs-dir", str(tmp_path / "logs"),
                "--work-dir", str(work))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (f"cowork-judge run: error: --work-dir {work} {problem.format(file=file)}; the judge keeps its "
                           "deck evidence and block workspaces there; give a folder (it is made when missing), or leave "
                           "--work-dir out for a temp folder removed at the end\n")
    assert file.read_text() == "mine\n" and not (tmp_path / "logs").exists()


def test_a_judge_work_dir_that_is_a_file_is_replaced_by_a_temp_folder_with_a_warning(tmp_path):
    """A chat run: on main every agentic row was unjudged ``backend_error`` (the endpoint blamed)."""
    tests = agentic_example(tmp_path / "tests")
    logs, app, tmp = tmp_path / "logs", tmp_path / "app", tmp_path / "tmp"
    (logs / "agent").mkdir(parents=True)
    (logs / "agent" / "trajectory.json").write_bytes((ROLLOUTS / "chat" / "logs" / "agent" / "trajectory.json").read_bytes())
    app.mkdir()
    tmp.mkdir()
    file = tmp_path / "scratch"
    file.write_text("mine\n")
    server = SimServer(DemoPolicy(), api_key=SIM_KEY).start()
    try:
        proc = _cli("run", "--app-dir", str(app), "--tests-dir", str(tests), "--logs-dir", str(logs),
                    env={"JUDGE_WORK_DIR": str(file), "JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": server.url,
                         "JUDGE_MODEL": "sim-judge", "TMPDIR": str(tmp)})
    finally:
        server.stop()
    assert proc.returncode == 0, proc.stderr
    doc = _doc(logs)
    assert doc["status"] == "success" and doc["exit_code"] is None
    assert [r["error_kind"] for r in doc["results"] if not r["judged"]] == []
    assert doc["extra_fields"]["judge_called"] is True
    warning = (f"work dir: JUDGE_WORK_DIR {file} is a file, not a folder; this run worked in a temp folder of its own, "
               "removed at the end (its deck evidence is kept in the verifier folder's evidence/)")
    assert warning in doc["details"]["warnings"] and warning in proc.stderr
    assert file.read_text() == "mine\n"
    assert [p.name for p in tmp.iterdir() if p.name.startswith("cowork-judge-")] == []  # the temp folder is removed


# F4: what report and rescore derived from the earlier result


def test_a_run_judged_again_sets_the_earlier_report_and_rescore_aside(tmp_path):
    app, tests = _instance(tmp_path)
    logs = tmp_path / "logs"
    verifier = logs / "verifier"
    argv = ("run", "--app-dir", str(app), "--tests-dir", str(tests), "--logs-dir", str(logs))
    first = _cli(*argv)
    assert first.returncode == 0, first.stderr
    assert not any(w.startswith("verifier folder:") for w in _doc(logs)["details"]["warnings"])
    for tool in (("report", str(verifier)), ("report", str(verifier), "--out", str(verifier / "page.html")),
                 ("rescore", str(verifier), "--mode", "binary"),
                 ("rescore", str(verifier), "--mode", "binary", "--name", "result.binary.json")):
        done = _cli(*tool)
        assert done.returncode == 0, done.stderr
    (verifier / "notes.txt").write_text("a reviewer's notes\n")
    (verifier / "other.json").write_text('{"mine": true}\n')
    earlier = {name: (verifier / name).read_bytes()
               for name in ("page.html", "report.html", "result.binary.json", "result.rescored.json")}

    again = _cli(*argv)
    assert again.returncode == 0, again.stderr
    aside = verifier / "set-aside"
    assert {name: (aside / name).read_bytes() for name in sorted(os.listdir(aside))} == earlier  # moved, byte for byte
    assert not any((verifier / name).exists() for name in earlier)
    assert (verifier / "notes.txt").read_text() == "a reviewer's notes\n"  # not derived from a result: left alone
    assert (verifier / "other.json").read_text() == '{"mine": true}\n'
    warning = (f"verifier folder: moved page.html, report.html, result.binary.json, result.rescored.json (written by "
               f"report/rescore from an earlier run's result, not rewritten by this run) to {aside}")
    assert warning in _doc(logs)["details"]["warnings"] and warning in again.stderr

    assert _cli("report", str(verifier)).returncode == 0
    third = _cli(*argv)  # a name taken in set-aside/ gets a numbered suffix: nothing is overwritten
    assert third.returncode == 0, third.stderr
    assert sorted(os.listdir(aside)) == ["page.html", "report.html", "report.html.1", "result.binary.json",
                                         "result.rescored.json"]
    assert (aside / "report.html").read_bytes() == earlier["report.html"]


def test_a_set_aside_link_is_never_followed(tmp_path):
    app, tests = _instance(tmp_path)
    logs, victim = tmp_path / "logs", tmp_path / "victim"
    victim.mkdir()
    argv = ("run", "--app-dir", str(app), "--tests-dir", str(tests), "--logs-dir", str(logs))
    assert _cli(*argv).returncode == 0
    assert _cli("report", str(logs / "verifier")).returncode == 0
    (logs / "verifier" / "set-aside").symlink_to(victim)
    proc = _cli(*argv)
    assert proc.returncode == 0, proc.stderr
    assert os.listdir(victim) == [] and (logs / "verifier" / "report.html").is_file()
    said = [w for w in _doc(logs)["details"]["warnings"] if w.startswith("verifier folder:")]
    assert said == [f"verifier folder: report.html (written by report/rescore from an earlier run's result, not rewritten "
                    f"by this run) left beside this run's result: {logs / 'verifier' / 'set-aside'} is a symbolic link or "
                    "not a folder, so nothing was moved there; remove them, or that entry, by hand"]
