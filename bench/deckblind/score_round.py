"""Score a blind deck round: a whole judge run per deck with an all-pass vision judge.

    .venv/bin/python bench/deckblind/make_round6.py --out /tmp/deckround6
    .venv/bin/python bench/deckblind/score_round.py --decks /tmp/deckround6 [--jobs 2] [--out bench/RESULTS-deck-round6-blind.md]

Each deck is delivered alone in ``app/output/`` of a rollout and judged by ``cowork-judge run``
(LibreOffice + PyMuPDF, the deterministic checks, ``ppt_judge``) against the built-in simulator
whose oracle passes every visual row on every page — the judge a defect must not fool. The
rubric is the two delivery gates and the 14 visual rows of the example deck task
(``tests/rubric.json``), content rows left out. So a row below 1 is what the checks (or the
deck's status) cost; nothing else can take a point.

Scored against ``labels.json``:

- a labelled defect is **caught** when the row its kind decides (``text_overflow``/``off_slide``
  → ``V-LAYOUT-CLIPPED``, ``text_overlap`` → ``V-LAYOUT-OVERLAP``, ``missing_glyph`` →
  ``V-TYPE-GARBLED``, ``blank_page`` → ``V-COMPLETE-BLANK``, ``tiny_font`` → ``V-TYPE-SIZE``,
  ``placeholder_text`` → ``V-COMPLETE-PLACEHOLDER``) is below 1 with the labelled page in its
  ``pages_below``; a critical defect is a **critical miss** when it is not caught;
  ``unreadable`` is caught when ``C-DECK-OPENABLE`` is not hit; ``odp_named_pptx`` is reported
  with what the judge said of the file (its reason), never counted as a miss;
- a clean deck **loses points** when its reward is below 1.

``--oracle miss`` judges with a simulator that credits nothing (oracle ``{}``): every point a
deck earns then comes from the gates and the rows the checks decide. A label's optional
``text_rows`` (round 7) says what the four text rows the checks decide (`TEXT_ROWS`) should
give: ``none`` (a deck with no text: no credit) or ``credit`` (text measured clean); a second
table reports each deck's credit on them against it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROW_OF = {"text_overflow": "V-LAYOUT-CLIPPED", "off_slide": "V-LAYOUT-CLIPPED", "text_overlap": "V-LAYOUT-OVERLAP",
          "missing_glyph": "V-TYPE-GARBLED", "blank_page": "V-COMPLETE-BLANK", "tiny_font": "V-TYPE-SIZE",
          "placeholder_text": "V-COMPLETE-PLACEHOLDER", "unreadable": "C-DECK-OPENABLE"}

TEXT_ROWS = ("V-LAYOUT-CLIPPED", "V-TYPE-GARBLED", "V-TYPE-SIZE", "V-COMPLETE-PLACEHOLDER")


def _instance(root: Path, oracle_mode: str = "pass") -> tuple[Path, Path]:
    """The blind instance's tests/ (gates + visual rows) and the oracle (all-pass, or ``miss``:
    ``{}``, nothing credited); returns both paths."""
    example = json.loads((REPO / "tests" / "rubric.json").read_text())
    rows = [r for r in example["rubrics"] if r["id"] in ("C-LOCATE-DECK", "C-DECK-OPENABLE") or r["id"].startswith("V-")]
    tests = root / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"workflow_config": example["workflow_config"], "rubrics": rows}, indent=1))
    (tests / "task_prompt.md").write_text("Make a short slide deck (.pptx) presenting the year's results; save it in output/.\n")
    oracle = root / "oracle.json"
    oracle.write_text(json.dumps({} if oracle_mode == "miss" else
                                 {r["id"]: {"hit": True, "level": 1.0, "reason": "all-pass vision judge"}
                                  for r in rows if r["id"].startswith("V-")}))
    return tests, oracle


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _judge(deck: Path, tests: Path, root: Path, env: dict[str, str]) -> dict:
    """Run the judge on one deck; returns its result document (or ``{"error": ...}``)."""
    run = root / deck.stem
    (run / "app" / "output").mkdir(parents=True)
    (run / "logs" / "agent").mkdir(parents=True)
    (run / "logs" / "verifier").mkdir(parents=True)
    shutil.copy(deck, run / "app" / "output" / deck.name)
    (run / "logs" / "agent" / "response.md").write_text(f"I saved the deck as output/{deck.name}.\n")
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(run / "app"), "--logs-dir",
                        str(run / "logs"), "--tests-dir", str(tests)], env=env, capture_output=True, text=True,
                       timeout=900)
    res = run / "logs" / "verifier" / "result.json"
    if not res.is_file():
        return {"error": f"exit {p.returncode}: {p.stderr[-400:]}"}
    doc = json.loads(res.read_text())
    doc["_seconds"] = round(time.monotonic() - t0, 1)
    return doc


def _score(labels: dict, docs: dict[str, dict]) -> tuple[list[str], dict]:
    """Markdown lines and the totals for the round."""
    lines = ["| deck | label | reward | rows below 1 (pages) | verdict |", "|---|---|---:|---|---|"]
    tot = {"clean": 0, "clean_lost": 0, "defects": 0, "caught": 0, "critical": 0, "critical_missed": 0}
    for name, lab in labels.items():
        doc = docs.get(name, {"error": "not run"})
        if "error" in doc:
            lines.append(f"| {name} | — | — | — | run failed: {doc['error'][:120]} |")
            continue
        res = {r["id"]: r for r in doc["results"]}
        below = {rid: r for rid, r in res.items() if (r.get("level") if r.get("level") is not None else (1.0 if r.get("hit") else 0.0)) < 1}
        shown = ", ".join(f"{rid} {r.get('level')} {sorted(r.get('pages_below') or {})}" for rid, r in below.items()) or "none"
        if lab["clean"]:
            tot["clean"] += 1
            lost = doc["reward"] < 1
            tot["clean_lost"] += lost
            lines.append(f"| {name} | clean | {doc['reward']:.3f} | {shown} | {'LOSES POINTS' if lost else 'ok'} |")
            continue
        verdicts = []
        for d in lab["defects"]:
            if d["kind"] == "odp_named_pptx":
                gate = res.get("C-DECK-OPENABLE", {})
                verdicts.append(f"odp: openable={gate.get('hit')}; {str(gate.get('reason'))[:90]}")
                continue
            tot["defects"] += 1
            tot["critical"] += d["critical"]
            row = res.get(ROW_OF[d["kind"]], {})
            if d["kind"] == "unreadable":
                caught = row.get("hit") is False
            else:
                pages = {int(p) for p in (row.get("pages_below") or {})}
                caught = (row.get("level") or 0) < 1 and (d["slide"] in pages or not pages)
            tot["caught"] += caught
            if d["critical"] and not caught:
                tot["critical_missed"] += 1
            verdicts.append(f"{d['kind']}@{d['slide']}: {'caught' if caught else ('CRITICAL MISS' if d['critical'] else 'missed')}")
        lines.append(f"| {name} | defect | {doc['reward']:.3f} | {shown} | {'; '.join(verdicts)} |")
    return lines, tot


def _text_rows(labels: dict, docs: dict[str, dict]) -> list[str]:
    """The text rows' table: each deck's level on `TEXT_ROWS` against its ``text_rows`` label."""
    lines = ["", "| deck | text on its pages | " + " | ".join(TEXT_ROWS) + " | verdict |",
             "|---|---|" + "---:|" * len(TEXT_ROWS) + "---|"]
    for name, lab in labels.items():
        doc = docs.get(name, {})
        if "text_rows" not in lab or "error" in doc or not doc:
            continue
        res = {r["id"]: r for r in doc["results"]}
        levels = [res.get(rid, {}).get("level") for rid in TEXT_ROWS]
        credit = any((lv or 0) > 0 for lv in levels)
        ok = credit == (lab["text_rows"] == "credit")
        cells = " | ".join("—" if lv is None else f"{lv:g}" for lv in levels)
        lines.append(f"| {name} | {lab['text_rows']} | {cells} | {'ok' if ok else 'WRONG'} |")
    return lines if len(lines) > 3 else []


def main(argv: list[str] | None = None) -> int:
    """Judge every deck of ``--decks`` and write the table; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decks", type=Path, required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--title", default="Deck checks, blind round")
    ap.add_argument("--oracle", choices=("pass", "miss"), default="pass",
                    help="the simulated vision judge: passes every visual row (default) or credits nothing")
    args = ap.parse_args(argv)
    labels = json.loads((args.decks / "labels.json").read_text())
    root = Path(tempfile.mkdtemp(prefix="deckround-"))
    tests, oracle = _instance(root, args.oracle)
    port = _free_port()
    sim = subprocess.Popen([sys.executable, "-m", "cowork_judge", "sim", "--port", str(port), "--oracle", str(oracle)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    env = {**os.environ, "JUDGE_BASE_URL": f"http://127.0.0.1:{port}/v1", "JUDGE_API_KEY": "sim", "JUDGE_MODEL": "sim-judge"}
    load0 = os.getloadavg()[0]
    t0 = time.monotonic()
    try:
        time.sleep(2)
        with ThreadPoolExecutor(args.jobs) as pool:
            futs = {n: pool.submit(_judge, args.decks / n, tests, root, env) for n in labels}
            docs = {n: f.result() for n, f in futs.items()}
    finally:
        sim.terminate()
    lines, tot = _score(labels, docs)
    head = [f"# {args.title}", "",
            f"`{' '.join([Path(sys.argv[0]).name] + (argv or sys.argv[1:]))}` — {len(labels)} decks, "
            f"{time.monotonic() - t0:.0f} s, load {load0:.1f} → {os.getloadavg()[0]:.1f} (1-min average), "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.", "",
            f"- clean decks that lose points: **{tot['clean_lost']} / {tot['clean']}** (bar: ≤ 1 in 30)",
            f"- labelled defects caught: {tot['caught']} / {tot['defects']}",
            f"- critical defects missed: **{tot['critical_missed']} / {tot['critical']}** (bar: 0 where a check claims the kind)",
            ""]
    text = "\n".join(head + lines + _text_rows(labels, docs)) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
