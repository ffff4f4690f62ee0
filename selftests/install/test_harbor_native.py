"""The task author's path of ``docs/harbor-task.md``, run AS WRITTEN (issue 26), for a deck task with ppt_judge rows.

The bash blocks of "The path, step by step" are extracted from the page and run with bash (``set -e``):
``harbor init`` → instruction → rubric + content checks + ``gen-ppt-rubrics`` → ``cowork-judge init`` →
``lint-rubric`` → reference solution + ``cowork-judge try`` (the dry run) → ``harbor lint`` → a real
``harbor run`` (Harbor 0.26) → [this test edits one rubric row] → ``init``, ``lint-rubric``,
``harbor jobs regrade``. What stands in for what the page cannot name (each string must be in the page):

- the reference deck ``path/to/a-good-deck.pptx`` is a real deck of ``selftests/fixtures/decks``;
- the judge endpoint ``https://judge.example.com/v1`` / ``sk-your-judge-key`` is the simulator (its
  deterministic word-overlap policy, the one ``try`` uses itself) on 127.0.0.1;
- the index ``https://pypi.example.com/simple/`` is the session's local PEP 503 index (this checkout's
  wheel and the ``workflow`` extra's wheels);
- Docker: a ``harbor`` shim on PATH adds ``-e bwrap_env:BwrapEnvironment`` to ``run`` and ``jobs regrade``
  (``harbor_env/bwrap_env.py``: containers are bubblewrap sandboxes over the host's ``/usr``, so LibreOffice
  and Chromium come from the host), whose pip sees only the local index (``BWRAP_ENV_PIP_INDEX_URL``).
  ``/opt/cowork-judge`` is shared by the job's environments: the volume the page asks for the verdict cache.

Checked: the dry run and the real run both judge every row (coverage 1.0, ppt_judge rows included) and
agree on the reward; ``harbor lint`` is clean of the verifier rules; the regrade after a one-row edit asks
the model about that row only, and the delta Harbor prints is the judge's own reward difference.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import DECKS

from cowork_judge.sim import DemoPolicy, SimServer
from install.harness import CACHE_ROOT, REPO

pytestmark = pytest.mark.slow

HARBOR = Path(os.environ.get("HARBOR_BIN") or REPO / ".venv-harbor" / "bin" / "harbor")
ENV_DIR = Path(__file__).with_name("harbor_env")
DOC = REPO / "docs" / "harbor-task.md"
DECK = DECKS / "45__PPTAgent__build_effective_agents.pptx"
SIM_KEY = "sk-sim-native-0123456789"
PLACEHOLDERS = ("path/to/a-good-deck.pptx", "https://judge.example.com/v1", "sk-your-judge-key", "https://pypi.example.com/simple/")
VERIFIER_RULES = ("verifier-runtime-install", "verifier-network-download")
DELTA = re.compile(r"Regrade delta over (\d+) trial\(s\): (\d+) changed \((\d+) up, (\d+) down\), "
                   r"mean reward (-?[0-9.]+) → (-?[0-9.]+)")
EDITED_TEXT = "The deck quotes the quarterly revenue figures of three named shipping companies."
"""The edited row's new wording: nothing in the deck says this (the simulator's policy answers a miss)."""


def path_blocks() -> list[str]:
    """The bash blocks of the page's "The path, step by step" section, in order."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index("## The path, step by step")
    end = text.index("\n## ", start + 3)
    return re.findall(r"```bash\n(.*?)```", text[start:end], flags=re.DOTALL)


def test_the_page_is_one_path_with_the_dry_run():
    blocks = path_blocks()
    script = "\n".join(blocks)
    order = ["harbor init", "gen-ppt-rubrics", "cowork-judge init", "lint-rubric", "cowork-judge try", "harbor lint",
             "harbor run", "harbor jobs regrade"]
    positions = [script.index(step) for step in order]
    assert positions == sorted(positions), "the steps are out of order"
    for placeholder in PLACEHOLDERS:
        assert placeholder in script, f"{placeholder} is no longer in the page: update this test's stand-ins"


def trial_results(jobs: Path) -> list[dict]:
    out = []
    for path in sorted(jobs.rglob("result.json")):
        doc = json.loads(path.read_text())
        if "verifier_result" in doc and "task_name" in doc:
            out.append(doc | {"_dir": str(path.parent)})
    return out


HOOK = """
import json, sys, time
from pathlib import Path

# the test's one-row rubric edit, between the page's step 8 and step 9 (same shell: the exports hold)
work = Path.cwd()
trial = next(p.parent for p in sorted((work / "jobs").rglob("result.json")) if (p.parent / "verifier" / "result.json").is_file())
verdicts = json.loads((trial / "verifier" / "result.json").read_text())["results"]
path = work / "my-deck-task" / "tests" / "rubric.json"
rubric = json.loads(path.read_text())
gates = {g for r in rubric["rubrics"] for g in r.get("depends_on", [])}
hit = [r["id"] for r in sorted(verdicts, key=lambda r: r["method"] != "agentic")  # an agentic row first
       if r["method"] in ("agentic", "workflow") and r["hit"] and r["weight"] > 0 and not r["id"].startswith("V-")
       and r["id"] not in gates]  # a model-judged row no other row depends on, judged a hit
row = next(r for r in rubric["rubrics"] if r["id"] == hit[0])
row["description"] = sys.argv[1]
path.write_text(json.dumps(rubric, indent=2) + "\\n")
(work / "hook.json").write_text(json.dumps({"edited": row["id"], "monotonic": time.monotonic()}))
"""


@pytest.fixture(scope="module")
def journey(tmp_path_factory, package_index, judge_home):
    if not HARBOR.is_file():
        pytest.skip(f"harbor is not installed at {HARBOR} (set HARBOR_BIN; .ci/run installs it under Python 3.12)")
    if not DECK.is_file():
        pytest.skip(f"fixture deck not found: {DECK}")
    blocks = path_blocks()
    split = next(i for i, b in enumerate(blocks) if "harbor jobs regrade" in b)
    root = tmp_path_factory.mktemp("author")
    shims = root / "shims"
    shims.mkdir()
    (shims / "harbor").write_text(f"""#!/bin/bash
# Docker stands in: run and regrade go through the bubblewrap environment (selftests/install/harbor_env)
case "$1 $2" in
  "run "*|"jobs regrade") exec {HARBOR} "$@" -e bwrap_env:BwrapEnvironment ;;
esac
exec {HARBOR} "$@"
""")
    (shims / "harbor").chmod(0o755)
    hook = root / "edit_one_row.py"
    hook.write_text(HOOK)
    work = root / "work"
    work.mkdir()
    server = SimServer(DemoPolicy(), api_key=SIM_KEY).start()
    stand_ins = {"path/to/a-good-deck.pptx": str(DECK), "https://judge.example.com/v1": server.url,
                 "sk-your-judge-key": SIM_KEY, "https://pypi.example.com/simple/": package_index.url}
    script = "\n".join([*blocks[:split], f"{sys.executable} {hook} '{EDITED_TEXT}'", *blocks[split:]])
    for old, new in stand_ins.items():
        script = script.replace(old, new)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_", "PIP_", "OPENAI_"))}
    env.update(PATH=f"{shims}:{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin", PYTHONPATH=str(ENV_DIR),
               LITELLM_LOCAL_MODEL_COST_MAP="True", COWORK_JUDGE_CACHE=str(CACHE_ROOT), BWRAP_ENV_JUDGE_HOME=str(judge_home),
               BWRAP_ENV_BASE=str(root), BWRAP_ENV_PIP_INDEX_URL=package_index.url)
    try:
        proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=work, env=env, capture_output=True, text=True,
                              timeout=3600)
        entries = server.log.entries()
    finally:
        server.stop()
    task = work / "my-deck-task"
    lint = subprocess.run([str(HARBOR), "lint", str(task), "--json"], env=env, capture_output=True, text=True, timeout=300)
    edit = json.loads((work / "hook.json").read_text()) if (work / "hook.json").is_file() else {}
    regrade_calls = [rid for e in entries if e.start_s > edit.get("monotonic", float("inf")) for rid in e.row_ids]
    jobs = sorted(p for p in (work / "jobs").iterdir() if p.is_dir()) if (work / "jobs").is_dir() else []
    dry_run = re.search(r"^documents \((.+)/logs/verifier\):$", proc.stdout, flags=re.MULTILINE)
    yield {"work": work, "task": task, "proc": proc, "lint": lint, "edited": edit.get("edited"), "regrade_calls": regrade_calls,
            "run": trial_results(jobs[0]) if jobs else [], "regraded": trial_results(jobs[1]) if len(jobs) > 1 else []}
    if dry_run and Path(dry_run.group(1)).name.startswith("cowork-judge-try-"):
        shutil.rmtree(dry_run.group(1), ignore_errors=True)  # the page's `try` wrote to a new temp folder


def _log(proc: subprocess.CompletedProcess) -> str:
    return f"\nstdout:\n{proc.stdout[-4000:]}\nstderr:\n{proc.stderr[-4000:]}"


def judge_doc(trial: dict) -> dict:
    return json.loads((Path(trial["_dir"]) / "verifier" / "result.json").read_text())


def try_result(journey) -> tuple[str, dict]:
    out = journey["proc"].stdout
    match = re.search(r"^documents \((.+)\):$", out, flags=re.MULTILINE)
    assert match, _log(journey["proc"])
    return out, json.loads((Path(match.group(1)) / "result.json").read_text())


def assert_every_row_judged(doc: dict) -> None:
    assert doc["status"] == "success" and doc["exit_code"] is None, (doc["status"], doc.get("exit_reason"))
    unjudged = [(r["id"], r["error_kind"]) for r in doc["results"] if not r["judged"]]
    assert doc["extra_fields"]["judge_coverage"] == 1.0 and not unjudged, unjudged
    ppt = {r["id"] for r in doc["results"] if r["method"] == "workflow"}
    content = {"T1-WORKFLOWS-AGENTS", "T1-PROMPT-CHAINING", "T2-WORKFLOWS-AGENTS"}  # the page's content checks
    assert content <= ppt and len([i for i in ppt if i.startswith("V-")]) == 14, sorted(ppt)


def test_the_path_runs_as_written(journey):
    assert journey["proc"].returncode == 0, _log(journey["proc"])
    assert journey["edited"], _log(journey["proc"])


def test_the_dry_run_judges_every_row_of_the_deck_task(journey):
    out, doc = try_result(journey)
    assert "sandbox: bubblewrap" in out and "coverage: 1.000" in out, out[-3000:]
    assert_every_row_judged(doc)


def test_harbor_lint_is_clean_of_the_verifier_rules(journey):
    proc = journey["lint"]
    assert proc.stdout.strip().startswith("["), proc.stdout + proc.stderr
    assert not [f for f in json.loads(proc.stdout) if f.get("rule") in VERIFIER_RULES]


def test_the_real_harbor_run_judges_every_row_and_agrees_with_the_dry_run(journey):
    (trial,) = journey["run"] or [None]
    assert trial is not None, _log(journey["proc"])
    assert trial.get("exception_info") is None, trial.get("exception_info")
    doc = judge_doc(trial)
    assert_every_row_judged(doc)
    assert trial["verifier_result"]["rewards"] == {"reward": pytest.approx(doc["task_score"], abs=1e-12)}
    _, dry = try_result(journey)
    assert doc["task_score"] == pytest.approx(dry["task_score"], abs=1e-9)  # the dry run predicts the trial's reward
    ctrf = json.loads((Path(trial["_dir"]) / "verifier" / "ctrf.json").read_text())
    assert len(ctrf["results"]["tests"]) == len(doc["results"])


def test_regrade_asks_only_the_edited_row_and_harbor_prints_the_judges_delta(journey):
    (old_trial,) = journey["run"] or [None]
    (new_trial,) = journey["regraded"] or [None]
    assert old_trial is not None and new_trial is not None, _log(journey["proc"])
    assert new_trial.get("exception_info") is None, new_trial.get("exception_info")
    edited = journey["edited"]
    # model calls: the edited row only (every other verdict from the cache)
    assert journey["regrade_calls"] and set(journey["regrade_calls"]) == {edited}
    old, new = judge_doc(old_trial), judge_doc(new_trial)
    assert_every_row_judged(new)
    old_rows, new_rows = {r["id"]: r for r in old["results"]}, {r["id"]: r for r in new["results"]}
    assert {i for i, r in new_rows.items() if r["cached"]} == {i for i, r in new_rows.items()
                                                               if r["method"] in ("agentic", "workflow")} - {edited}
    assert old_rows[edited]["hit"] is True and new_rows[edited]["hit"] is False
    changed = {i for i in old_rows if old_rows[i]["contribution"] != new_rows[i]["contribution"]}
    assert changed == {edited}  # the reward moved through that row alone
    # Harbor's printed delta is the judge's reward difference
    out = journey["proc"].stdout + journey["proc"].stderr
    match = DELTA.search(re.sub(r"\s+", " ", out))
    assert match, out[-3000:]
    n, n_changed, up, down, printed_old, printed_new = match.groups()
    assert (int(n), int(n_changed), int(up), int(down)) == (1, 1, 0, 1)
    assert float(printed_old) == pytest.approx(old["task_score"], abs=5e-4)
    assert float(printed_new) == pytest.approx(new["task_score"], abs=5e-4)
    assert new["task_score"] < old["task_score"]
    assert float(printed_new) - float(printed_old) == pytest.approx(new["task_score"] - old["task_score"], abs=1e-3)
    assert new_trial["verifier_result"]["rewards"]["reward"] == pytest.approx(new["task_score"], abs=1e-12)
