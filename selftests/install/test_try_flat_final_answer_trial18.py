"""Trial 18 P-12: ``cowork-judge try --rollout DIR`` with the chat answer saved flat as ``DIR/final_answer.txt``
(a real child process, sandboxed, against the simulator over HTTP).

The file was judged as a deliverable, the run had no final message, and the rows over the final message failed a
good answer with "0 words" and nothing said why. try now announces the file with the command line meant, the run
warns that rows read a final message none was given, and their reasons say so."""

from __future__ import annotations

import json

from cowork_judge.install import dryrun
from install.test_try_output import inited_task, try_on_sim

ROWS = [
    {"id": "C-SPEED", "description": "Mentions the speed of light.", "weight": 1, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"text": "speed of light", "source": "response"}},
    {"id": "C-LENGTH", "description": "20 to 150 words.", "weight": 1, "judge_method": "code",
     "code_method_name": "word_count_between", "code_method_params": {"min_words": 20, "max_words": 150,
                                                                      "source": "response"}},
]
ANSWER = ("Sunlight takes about 8.3 minutes to reach Earth: the distance, about 150 million km, divided by the speed "
          "of light, about 300,000 km/s, gives roughly 500 seconds.\n")


def _chat_task(root):
    return inited_task(root / "c", ROWS, "How long does sunlight take to reach Earth? Answer in your final message.\n")


def test_a_flat_final_answer_txt_is_announced_and_rows_over_the_message_say_none_was_given(tmp_path, sandbox_ready):
    task = _chat_task(tmp_path)
    rollout = tmp_path / "rollout"
    rollout.mkdir()
    (rollout / "final_answer.txt").write_text(ANSWER)
    proc = try_on_sim(task, tmp_path, "--rollout", str(rollout))
    said = proc.stdout + proc.stderr
    assert proc.returncode == 0, said
    assert "no --final-message reads its final_answer.txt as the agent's final message" in said
    assert f"--final-message {rollout / 'final_answer.txt'}" in said
    assert f"{rollout / 'logs' / 'agent' / 'final_answer.txt'}" in said
    doc = json.loads((tmp_path / "out" / "logs" / "verifier" / "result.json").read_text())
    warned = [w for w in doc["details"]["warnings"] if "no final message was given" in w]
    assert warned and "C-SPEED, C-LENGTH read the final message (source: response)" in warned[0], doc["details"]
    reasons = {r["id"]: r["reason"] for r in doc["results"]}
    assert reasons["C-SPEED"] == "'speed of light' not found: no final message was given"
    assert reasons["C-LENGTH"] == "nothing to count: no final message was given"


def test_a_flat_response_txt_is_announced_unless_an_option_gives_the_message(tmp_path):
    rollout = tmp_path / "r"
    rollout.mkdir()
    (rollout / "response.txt").write_text(ANSWER)
    (rollout / "report.md").write_text("a deliverable\n")
    misread = dryrun.read_rollout(rollout).misread
    assert "its response.txt as the agent's final message" in misread
    assert f"--final-message {rollout / 'response.txt'}" in misread
    message = tmp_path / "answer.txt"
    message.write_text(ANSWER)
    assert dryrun.read_rollout(str(rollout), final_message=message).misread == ""
    (rollout / "response.txt").unlink()
    assert dryrun.read_rollout(rollout).misread == ""
