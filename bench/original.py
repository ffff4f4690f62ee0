"""Benchmark: this project beside the original ``cowork-judge`` 1.3.6 from the registry, on
one corpus, against one simulator (issue 34).

1.3.6 is installed with pip into its own venv (``--cache``, default
``~/.cache/cowork-judge-selftests/orig-1.3.6``, the folder the slow selftests use; or
``--original-python PATH``) and run as its README says: ``python -m cowork_judge <tests>``
with ``TASK_DIR``/``OUTPUT_DIR``/``VERIFIER_LOG_DIR``/``AGENT_TRAJECTORY``, its default
backend (the codex CLI, ``codex`` on ``PATH``, over the Responses API) and its ppt_judge.
This project runs as ``cowork-judge run`` with its defaults. Both start with no start
jitter and talk to one in-process simulator (``cowork_judge.sim``) that answers both
judges' request shapes from ONE oracle per instance, keyed by row id (``sim/original.py``
maps 1.3.6's shapes onto it), so both judges get the same verdict for every row.

The oracle of an instance: its labels when it has them (DevAI's human grades), else a
fixed draw per row id (a keyed hash: about 70 % of rows hit; a graded row gets its top
level choice, the one nearest 2/3 — a level 1.3.6's four severities can express — or its
lowest); on the deck task, the rows this project's deterministic checks decide on the
example deck pass (`DECK_FACTS`: the oracle does not contradict the deck); a checklist
row's oracle entry carries the question 1.3.6 sends (``criterion``). Each judge's requests
are kept in ``<work>/runs/<instance>/<judge>/requests.jsonl`` (``--keep``).

Corpus: the example deck (its final message as one string) in this project's asset format, in 1.3.6's
(``type1_checklist.json``/``type2_checklist.json``, schema-less manifest) and in both; the
chat and empty rollouts of the same task; the HealthBench example and three imported
HealthBench fixtures that have an ideal completion; two imported DevAI fixtures (their
instruction as the deliverable, their human labels as the oracle); and hostile cases: an
ATIF final message made of content parts (the example deck rollout as shipped, and the
HealthBench example's), a lone surrogate in the HealthBench example's final message, an
HTML file named ``.pptx``, the HealthBench example with 30 % random 429s (``Retry-After: 1``,
the same seeded plan for each judge), a dead endpoint (both judges with ``JUDGE_DEADLINE=60``).

Per instance and judge: reward, ``exit_code`` (the exit message's), rows whose (hit, gained)
differ between the judges, rows judged of all,
model requests the simulator received (refused ones included), prompt and completion
tokens (the simulator's estimates), wall seconds; and whether the rewards differ.

Usage::

    python bench/original.py [--only NAME,...] [--cache DIR | --original-python PATH] [--out FILE.md] [--json FILE]

Exit status: 0 when both judges ran on every instance (differences are reported, not
failures), 2 when 1.3.6 cannot be installed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cowork_judge.sim import FaultPlan, OraclePolicy, SimServer

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "selftests" / "fixtures"
KEY = "sk-bench-original-0000000000"
MODEL = "sim-judge"
ORIGINAL = "cowork-judge[workflow]==1.3.6"
CHECKS = Path("workflow_assets") / "ppt_judge" / "task_check_dir"


@dataclass
class Instance:
    """One corpus entry: the task's tests folder, the rollout (``app/output``, ``logs/agent``),
    extra environment for both judges, and the oracle (row id → entry)."""

    name: str
    tests: Path
    rollout: Path
    oracle: dict[str, Any]
    env: dict[str, str] = field(default_factory=dict)
    dead: bool = False
    rate_429: float = 0.0
    """Probability of an HTTP 429 (``Retry-After: 1``) per request, seeded the same for both judges."""


@dataclass
class Outcome:
    """What one judge did on one instance."""

    reward: float | None
    exit_code: str | None
    judged: str
    requests: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    note: str = ""
    rows: dict[str, tuple[bool, float]] = field(default_factory=dict)
    """Row id → (hit, gained) of the original's ``details.results`` in ``result.json``."""
    refused: int = 0
    """Requests answered 429 by the fault plan."""


# -- the 1.3.6 venv -------------------------------------------------------------------
def original_python(cache: Path) -> tuple[Path | None, str]:
    """The python of a venv holding 1.3.6 (created with pip when missing); (None, why) when
    pip cannot install it."""
    venv = cache / "orig-1.3.6"
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import importlib.metadata as m; assert m.version('cowork-judge') == '1.3.6'; import pptx, fitz, openai"]
    if python.exists() and subprocess.run(probe, capture_output=True, check=False).returncode == 0:
        return python, ""
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True, capture_output=True)
    proc = subprocess.run([str(python), "-m", "pip", "install", "-q", ORIGINAL],
                          capture_output=True, text=True, timeout=600, check=False)
    if proc.returncode != 0:
        return None, proc.stderr.strip()[-300:]
    return python, ""


# -- oracles --------------------------------------------------------------------------
def _draw(key: str) -> float:
    return int.from_bytes(hashlib.sha256(f"bench-original\0{key}".encode("utf-8", "surrogatepass")).digest()[:8], "big") / 2.0**64


def _questions(tests: Path) -> dict[str, str]:
    """Checklist row id → the question 1.3.6 sends, from either asset format."""
    out: dict[str, str] = {}
    folder = tests / CHECKS
    for name, key in (("type1.json", "checks"), ("type2.json", "checks"),
                      ("type1_checklist.json", "items"), ("type2_checklist.json", "items")):
        path = folder / name
        if path.is_file():
            for item in json.loads(path.read_text(encoding="utf-8")).get(key) or []:
                if isinstance(item, dict) and item.get("id") and item.get("question"):
                    out.setdefault(str(item["id"]), str(item["question"]))
    return out


DECK_FACTS = frozenset({"V-LAYOUT-CLIPPED", "V-TYPE-GARBLED", "V-TYPE-SIZE", "V-COMPLETE-BLANK", "V-COMPLETE-PLACEHOLDER"})
"""Rows of the example deck task that this project's deterministic deck checks decide on the
example deck (no clipped or garbled text, no tiny type, no blank page, no template
placeholder on any of its 10 pages): the oracle states those facts (level 1) instead of
drawing, so that it does not contradict the deck it judges."""


def drawn_oracle(tests: Path, facts: frozenset[str] = frozenset()) -> dict[str, Any]:
    """A fixed oracle for the rows of ``tests/rubric.json`` (see the module docstring); rows
    in ``facts`` pass at level 1."""
    doc = json.loads((tests / "rubric.json").read_text(encoding="utf-8"))
    rows = doc.get("rubrics") if isinstance(doc, dict) else doc
    questions = _questions(tests)
    oracle: dict[str, Any] = {}
    for i, row in enumerate(rows or [], 1):
        rid = str(row.get("id", i))
        u = _draw(rid)
        entry: dict[str, Any] = {"hit": u < 0.7}
        levels = row.get("levels")
        if isinstance(levels, dict) and levels:
            choices = sorted(float(k) for k in levels)
            middle = min(choices, key=lambda c: abs(c - 2 / 3))  # a level 1.3.6's 0-3 severities can express
            level = choices[-1] if u < 0.7 else middle if u < 0.85 else choices[0]
            entry = {"hit": level > 0, "level": level}
        if rid in facts:
            entry = {"hit": True, "level": 1.0}
        if rid in questions:
            entry["criterion"] = questions[rid]
        oracle[rid] = entry
    return oracle


def labelled_oracle(path: Path) -> dict[str, Any]:
    """An instance's stored labels (``oracle.json``) as an oracle."""
    return json.loads(path.read_text(encoding="utf-8"))


# -- the corpus -----------------------------------------------------------------------
def _original_format(src: Path, dst: Path, *, keep_ours: bool) -> Path:
    """A copy of the tests folder ``src`` whose deck checks are in 1.3.6's format (and, with
    ``keep_ours``, in this project's too)."""
    shutil.copytree(src, dst)
    folder = dst / CHECKS
    for ours, theirs in (("type1.json", "type1_checklist.json"), ("type2.json", "type2_checklist.json")):
        checks = json.loads((folder / ours).read_text(encoding="utf-8"))["checks"]
        items = []
        for check in checks:
            item = dict(check)
            if "kind" in item:
                item["check_kind"] = item.pop("kind")
            items.append(item)
        (folder / theirs).write_text(json.dumps({"items": items}, ensure_ascii=False, indent=2), encoding="utf-8")
        if not keep_ours:
            (folder / ours).unlink()
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    if not keep_ours:
        manifest.pop("schema", None)
        (folder / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=2), encoding="utf-8")
    return dst


def _plain(message: Any) -> str:
    """A message made of content parts as one string (the parts' texts, one paragraph each)."""
    if isinstance(message, list):
        return "\n\n".join(str(p.get("text", "")) for p in message if isinstance(p, dict))
    return str(message)


def _rollout_with_final(src: Path, dst: Path, final: Any) -> Path:
    """A copy of rollout ``src`` whose last agent step with a message has ``final(message)``."""
    shutil.copytree(src, dst)
    path = dst / "logs" / "agent" / "trajectory.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    step = next(s for s in reversed(doc["steps"]) if s.get("source") == "agent" and s.get("message"))
    step["message"] = final(step["message"])
    path.write_text(json.dumps(doc, ensure_ascii=True), encoding="utf-8")
    return dst


def _import(kind: str, names: list[Path], out: Path, *extra: str) -> list[Path]:
    src = out.parent / f"{out.name}-src"
    src.mkdir(parents=True)
    for path in names:
        shutil.copy(path, src / path.name)
    subprocess.run([sys.executable, "-m", "cowork_judge", "import", kind, str(src), "--out", str(out), *extra],
                   check=True, capture_output=True, text=True)
    return sorted(p for p in out.iterdir() if p.is_dir())


def corpus(work: Path) -> list[Instance]:
    """Every instance of the bench, built under ``work``."""
    tests, rollouts = REPO / "tests", REPO / "examples" / "rollouts"
    t_orig = _original_format(tests, work / "tests-original", keep_ours=False)
    t_both = _original_format(tests, work / "tests-both", keep_ours=True)
    hb = REPO / "examples" / "healthbench-bbd759b4"
    # the shipped deck rollout's final message is content parts (1.3.6 crashes on it): the deck
    # instances use the same rollout with that message as one string
    deck = _rollout_with_final(rollouts / "deck", work / "r-deck", _plain)
    out = [
        Instance("deck", tests, deck, drawn_oracle(tests, DECK_FACTS)),
        Instance("deck-original-format", t_orig, deck, drawn_oracle(t_orig, DECK_FACTS)),
        Instance("deck-both-formats", t_both, deck, drawn_oracle(t_both, DECK_FACTS)),
        Instance("deck-as-shipped", tests, rollouts / "deck", drawn_oracle(tests, DECK_FACTS)),
        Instance("chat", tests, rollouts / "chat", drawn_oracle(tests)),
        Instance("empty-delivery", tests, _rollout_with_final(rollouts / "empty", work / "r-empty", _plain),
                 drawn_oracle(tests)),
        Instance("healthbench-example", hb / "tests", hb / "rollout", drawn_oracle(hb / "tests")),
        Instance("healthbench-example-429s", hb / "tests", hb / "rollout", drawn_oracle(hb / "tests"), rate_429=0.3),
    ]
    imported = _import("healthbench", sorted((FIXTURES / "healthbench").glob("example_0[1-6].json")), work / "hb",
                       "--response", "ideal")
    answered = [i for i in imported if (i / "rollout" / "logs" / "agent" / "trajectory.json").is_file()]
    for inst in answered[:3]:
        out.append(Instance(inst.name, inst / "tests", inst / "rollout", drawn_oracle(inst / "tests")))
    for inst in _import("devai", sorted((FIXTURES / "devai" / "instances").glob("0[12]_*.json")), work / "devai",
                        "--with-labels"):
        # the fixtures hold no deliverables: the task's own instruction stands in for one, so
        # that both judges ask about every row (the labels decide the verdicts)
        deliverable = inst / "rollout" / "app" / "output" / "README.md"
        deliverable.parent.mkdir(parents=True, exist_ok=True)
        deliverable.write_text((inst / "instruction.md").read_text(encoding="utf-8"), encoding="utf-8")
        oracle = labelled_oracle(inst / "oracle.json") if (inst / "oracle.json").is_file() else drawn_oracle(inst / "tests")
        out.append(Instance(f"devai-{inst.name[:2]}", inst / "tests", inst / "rollout", oracle))
    parts = _rollout_with_final(hb / "rollout", work / "r-parts", lambda m: [{"type": "text", "text": m}])
    surrogate = _rollout_with_final(hb / "rollout", work / "r-surrogate", lambda m: m + " \ud800 end")
    html = work / "r-html"
    shutil.copytree(deck, html)
    for deck in (html / "app" / "output").glob("*.pptx"):
        deck.write_text("<!doctype html><html><body><h1>Building effective agents</h1></body></html>\n", encoding="utf-8")
    out += [
        Instance("atif-content-parts", hb / "tests", parts, drawn_oracle(hb / "tests")),
        Instance("lone-surrogate", hb / "tests", surrogate, drawn_oracle(hb / "tests")),
        Instance("html-named-pptx", tests, html, drawn_oracle(tests, DECK_FACTS)),
        Instance("dead-endpoint", hb / "tests", hb / "rollout", {}, {"JUDGE_DEADLINE": "60"}, dead=True),
    ]
    return out


# -- running --------------------------------------------------------------------------
def _base_env(url: str, extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_", "ANTHROPIC_", "CODEX_"))}
    env.update(JUDGE_BASE_URL=url, JUDGE_API_KEY=KEY, JUDGE_MODEL=MODEL, JUDGE_START_JITTER="0",
               PYTHONDONTWRITEBYTECODE="1", **extra)
    return env


def _stage(inst: Instance, run: Path) -> tuple[Path, Path]:
    """Copy the rollout into ``run``: (app dir with ``output/``, logs dir with ``agent/``)."""
    app, logs = run / "app", run / "logs"
    (app / "output").mkdir(parents=True)
    src_out = inst.rollout / "app" / "output"
    if src_out.is_dir():
        shutil.copytree(src_out, app / "output", dirs_exist_ok=True)
    (logs / "verifier").mkdir(parents=True)
    agent = inst.rollout / "logs" / "agent"
    if agent.is_dir():
        shutil.copytree(agent, logs / "agent")
    return app, logs


def _read_rows(vdir: Path) -> dict[str, tuple[bool, float]]:
    try:
        doc = json.loads((vdir / "result.json").read_text(encoding="utf-8"))
        return {str(r["rubric_number"]): (bool(r.get("hit")), round(float(r.get("gained") or 0.0), 6))
                for r in (doc.get("details") or {}).get("results") or []}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _read_outcome(vdir: Path) -> tuple[float | None, str | None, str]:
    try:
        reward: float | None = float((vdir / "reward.txt").read_text().strip())
    except (OSError, ValueError):
        reward = None
    try:
        exit_code = json.loads((vdir / "reward_exit_message.json").read_text(encoding="utf-8")).get("exit_code")
    except (OSError, ValueError):
        exit_code = "(no exit message)"
    judged = "?"
    try:
        extra = json.loads((vdir / "reward_exit_message.json").read_text(encoding="utf-8")).get("extra_fields") or {}
        judged = f"{extra.get('rubrics_api_success_num', '?')}/{extra.get('rubrics_total_num', '?')}"
    except (OSError, ValueError, AttributeError):
        pass
    return reward, exit_code, judged


def run_judge(which: str, inst: Instance, sim: SimServer, work: Path, original: Path | None) -> Outcome:
    """Run one judge on one instance; its requests are the simulator's log entries added meanwhile."""
    run = work / "runs" / inst.name / which
    app, logs = _stage(inst, run)
    url = "http://127.0.0.1:9/v1" if inst.dead else sim.url
    env = _base_env(url, inst.env)
    if which == "1.3.6":
        assert original is not None
        env.update(TASK_DIR=str(inst.tests), OUTPUT_DIR=str(app / "output"), VERIFIER_LOG_DIR=str(logs / "verifier"),
                   AGENT_TRAJECTORY=str(logs / "agent" / "trajectory.json"), JUDGE_WORK_DIR=str(run / "work"),
                   INPUT_FILES_DIR=str(run / "input_files"), JUDGE_WORKFLOW_START_JITTER="0",
                   CODEX_HOME=str(run / "codex-home"), HOME=str(run))
        argv = [str(original), "-m", "cowork_judge", str(inst.tests)]
    else:
        argv = [sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(app), "--logs-dir", str(logs),
                "--tests-dir", str(inst.tests), "--alt-output-dir", str(run / "no-alt")]
    before = len(sim.log)
    t0 = time.monotonic()
    proc = subprocess.run(argv, cwd=str(run), env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=900, check=False)
    seconds = time.monotonic() - t0
    (run / "stderr.txt").write_text(proc.stderr, encoding="utf-8")
    entries = sim.log.entries()[before:]
    with open(run / "requests.jsonl", "w", encoding="utf-8") as fh:
        for e in entries:
            fh.write(json.dumps(e.to_dict(), ensure_ascii=False) + "\n")
    reward, exit_code, judged = _read_outcome(logs / "verifier")
    return Outcome(reward, exit_code, judged, len(entries), sum(e.prompt_tokens for e in entries),
                   sum(e.completion_tokens for e in entries), round(seconds, 1),
                   "" if proc.returncode == 0 else f"exit {proc.returncode}", _read_rows(logs / "verifier"),
                   sum(1 for e in entries if e.status == 429))


def rows_differ(a: Outcome, b: Outcome) -> int:
    """Rows whose (hit, gained) differ between the two judges (a row only one wrote counts)."""
    return sum(1 for rid in set(a.rows) | set(b.rows) if a.rows.get(rid) != b.rows.get(rid))


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.4f}"


def _req(o: Outcome) -> str:
    return f"{o.requests} ({o.refused} × 429)" if o.refused else str(o.requests)


def table(results: list[tuple[str, Outcome, Outcome]]) -> str:
    """The Markdown table of the results."""
    lines = ["| instance | reward 1.3.6 | reward here | differ | rows differ | exit_code 1.3.6 | exit_code here | rows judged 1.3.6 | here "
             "| requests 1.3.6 | here | prompt tokens 1.3.6 | here | completion tokens 1.3.6 | here | seconds 1.3.6 | here |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, o, h in results:
        differ = "no" if o.reward is not None and h.reward is not None and abs(o.reward - h.reward) < 5e-5 else "**yes**"
        lines.append(f"| {name} | {_fmt(o.reward)} | {_fmt(h.reward)} | {differ} | {rows_differ(o, h)} | {o.exit_code or '—'} "
                     f"| {h.exit_code or '—'} | {o.judged} | {h.judged} | {_req(o)} | {_req(h)} | {o.prompt_tokens} | {h.prompt_tokens} "
                     f"| {o.completion_tokens} | {h.completion_tokens} | {o.seconds} | {h.seconds} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", help="comma-separated instance names (default: all)")
    p.add_argument("--cache", type=Path, default=Path(os.environ.get("COWORK_SELFTEST_CACHE")
                                                      or Path.home() / ".cache" / "cowork-judge-selftests"))
    p.add_argument("--original-python", type=Path, help="a python with cowork-judge 1.3.6 installed (skips pip)")
    p.add_argument("--out", type=Path, help="also write the Markdown table here")
    p.add_argument("--json", type=Path, help="also write the results as JSON here")
    p.add_argument("--keep", type=Path, help="work folder to keep (default: a temporary one)")
    args = p.parse_args(argv)
    original = args.original_python
    if original is None:
        original, why = original_python(args.cache)
        if original is None:
            print(f"bench/original.py: cannot install {ORIGINAL}: {why}", file=sys.stderr)
            return 2
    if shutil.which("codex") is None:
        print("bench/original.py: 1.3.6's default backend needs the codex CLI on PATH", file=sys.stderr)
        return 2
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-original-"))
    work.mkdir(parents=True, exist_ok=True)
    instances = corpus(work / "corpus")
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {i.name for i in instances}
        if unknown:
            print(f"bench/original.py: unknown instance(s) {sorted(unknown)}; known: {[i.name for i in instances]}", file=sys.stderr)
            return 2
        instances = [i for i in instances if i.name in wanted]
    results = []
    for inst in instances:
        with SimServer(OraclePolicy.from_dict(inst.oracle, source=inst.name), api_key=KEY, model=MODEL) as sim:
            sim.faults = FaultPlan({"http_429": inst.rate_429}, seed=7) if inst.rate_429 else None
            o = run_judge("1.3.6", inst, sim, work, original)
            sim.faults = FaultPlan({"http_429": inst.rate_429}, seed=7) if inst.rate_429 else None
            h = run_judge("here", inst, sim, work, None)
        results.append((inst.name, o, h))
        print(f"{inst.name}: 1.3.6 {_fmt(o.reward)} ({o.requests} req) | here {_fmt(h.reward)} ({h.requests} req)",
              file=sys.stderr, flush=True)
    text = table(results)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps([{"instance": n, "original": asdict(o), "here": asdict(h)} for n, o, h in results],
                                        indent=2), encoding="utf-8")
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
