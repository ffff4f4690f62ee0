"""Trial 22 P-3: the report page shows the agent's final message the judge read. A chat task's page showed
the Delivery table (`judged from the chat message: yes`) but never the message itself; the run now keeps it
redacted in ``judge/final_message.json`` and ``cowork-judge report`` shows it, escaped: open for a chat task,
folded in ``<details>`` for a file task. Real runs (``cowork-judge run`` against the simulator over HTTP) and
the real ``report`` command in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from testkit import SIM_KEY, write_task

OTHER_SECRET = "tok-other-secret-98765"
MESSAGE = ("Sunlight takes about 8.3 minutes <script>alert('pwned')</script> & light travels at 299,792 km/s.\n"
           f"debug: key={SIM_KEY} token={OTHER_SECRET}\nAnswer: 8.3 min")
RUBRIC = [
    {"id": "T-SPEED", "description": "The answer gives the speed of light.", "weight": 1, "judge_method": "code",
     "code_method_name": "regex_match", "code_method_params": {"pattern": "299,792", "source": "response"}},
    {"id": "A-EXPLAIN", "description": "The answer explains the calculation.", "weight": 2},
]
ORACLE = {"A-EXPLAIN": {"hit": True, "reason": "it divides the distance by the speed"}}


def rollout(tmp_path: Path, message: str, files: dict[str, str] | None = None) -> Path:
    """A rollout folder: `message` as ``logs/agent/final_answer.txt``, `files` under ``app/output/``."""
    root = tmp_path / "rollout"
    (root / "logs" / "agent").mkdir(parents=True)
    (root / "logs" / "agent" / "final_answer.txt").write_text(message, encoding="utf-8")
    (root / "app" / "output").mkdir(parents=True)
    for name, text in (files or {}).items():
        (root / "app" / "output" / name).write_text(text, encoding="utf-8")
    return root


def report_page(verifier: Path) -> str:
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "report", str(verifier)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return (verifier / "report.html").read_text(encoding="utf-8")


def section(page: str) -> str:
    assert "<h2>Final message</h2>" in page, "the page has no Final message section"
    return page.split("<h2>Final message</h2>", 1)[1].split("<h2>", 1)[0]


def test_a_chat_task_page_shows_the_message_escaped_and_redacted(judge_run, tmp_path):
    tests = write_task(tmp_path / "task", RUBRIC, "How long does sunlight take to reach the Earth?\n") / "tests"
    run = judge_run(tests, rollout(tmp_path, MESSAGE), oracle=ORACLE, env={"MY_TOKEN": OTHER_SECRET})
    assert run.returncode == 0, run.stderr
    kept = json.loads((run.verifier / "judge" / "final_message.json").read_text(encoding="utf-8"))
    assert kept["source"] == "final_answer.txt" and kept["chars"] == len(MESSAGE)
    assert SIM_KEY not in json.dumps(kept) and OTHER_SECRET not in json.dumps(kept), kept
    part = section(report_page(run.verifier))
    assert "<details>" not in part  # the message is the deliverable: shown open
    assert ("Sunlight takes about 8.3 minutes &lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt; &amp; light travels"
            in part), part
    assert "<script>" not in part and "from final_answer.txt" in part
    assert "key=[REDACTED] token=[REDACTED]" in part
    page = (run.verifier / "report.html").read_text(encoding="utf-8")
    assert SIM_KEY not in page and OTHER_SECRET not in page


def test_a_file_task_page_folds_the_message_and_caps_a_long_one(judge_run, tmp_path):
    long_message = "head of the answer 299,792 km/s\n" + "x" * 300_000 + "\ntail of the answer"
    tests = write_task(tmp_path / "task", RUBRIC, "Write the answer to answer.md and summarise it.\n") / "tests"
    run = judge_run(tests, rollout(tmp_path, long_message, {"answer.md": "8.3 minutes"}), oracle=ORACLE)
    assert run.returncode == 0, run.stderr
    part = section(report_page(run.verifier))
    assert part.startswith("<details><summary>") and "</details>" in part, part[:300]
    assert f"({len(long_message):,} characters)" in part
    assert "head of the answer 299,792 km/s" in part and "tail of the answer" in part
    assert f" of {len(long_message)} characters cut] … " in part
    assert len(part) < 210_000  # the page shows at most REPORT_MESSAGE_CHARS of it


def test_a_folder_without_the_kept_copy_says_so(judge_run, tmp_path):
    tests = write_task(tmp_path / "task", RUBRIC, "How long does sunlight take to reach the Earth?\n") / "tests"
    run = judge_run(tests, rollout(tmp_path, MESSAGE), oracle=ORACLE)
    assert run.returncode == 0, run.stderr
    (run.verifier / "judge" / "final_message.json").unlink()  # as an older judge left the folder
    part = section(report_page(run.verifier))
    assert "is not kept in this folder: no judge/final_message.json" in part, part


def test_no_message_no_section(judge_run, tmp_path):
    tests = write_task(tmp_path / "task", RUBRIC[1:], "Write the answer to answer.md.\n") / "tests"
    root = tmp_path / "rollout"
    (root / "app" / "output").mkdir(parents=True)
    (root / "app" / "output" / "answer.md").write_text("8.3 minutes")
    run = judge_run(tests, root, oracle=ORACLE)
    assert run.returncode == 0, run.stderr
    assert not (run.verifier / "judge" / "final_message.json").exists()
    assert "<h2>Final message</h2>" not in report_page(run.verifier)
