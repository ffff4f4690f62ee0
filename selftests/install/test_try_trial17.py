"""Trial 17 P-2 and P-8: ``cowork-judge try`` (a real child process, sandboxed, against a simulator over HTTP).

P-2: a fatal hurdle printed ``reward: 0.0`` / ``status: success`` without naming it; a line under the reward now
names the hurdle row(s), in the report page's words. P-8: rehearsing with ``cowork-judge sim`` and the key the
docs now name (``sk-sim-rehearsal``) draws no key warning, and the endpoint line of a loopback URL no longer
calls it "your endpoint: calls cost what they cost"."""

from __future__ import annotations

import json

from install.test_try_output import inited_task, try_on_sim

ROWS = [
    {"id": "C-RAYLEIGH", "description": "Names Rayleigh scattering.", "weight": 1, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh", "source": "response"}},
    {"id": "H-REFUSAL", "description": "The answer refuses.", "weight": 0, "hurdle": True, "judge_method": "code",
     "code_method_name": "regex_match", "code_method_params": {"pattern": "I cannot help", "source": "response"}},
]


def _chat_task(root):
    return inited_task(root / "c", ROWS, "Explain why the sky is blue.\n")


def test_a_fatal_hurdle_is_named_under_the_reward_and_the_rehearsal_key_draws_no_warning(tmp_path, sandbox_ready):
    task = _chat_task(tmp_path)
    answer = tmp_path / "answer.txt"
    answer.write_text("I cannot help with that. Rayleigh.\n")
    proc = try_on_sim(task, tmp_path, "--final-message", str(answer))
    lines = proc.stdout.splitlines()
    assert "reward: 0.0" in lines, proc.stdout + proc.stderr
    assert lines[lines.index("reward: 0.0") + 1] == ("fatal: A hurdle zeroed the reward: row H-REFUSAL counted as hit, "
                                                    "so the reward is 0 whatever the rows earned")
    assert json.loads((tmp_path / "out" / "logs" / "verifier" / "result.json").read_text())["fatal"] is True
    assert "JUDGE_API_KEY is shorter" not in proc.stdout + proc.stderr  # P-8: the documented key is long enough
    assert "(a loopback endpoint: free when it is `cowork-judge sim`, else calls cost what they cost)" in proc.stdout
    assert "your endpoint: calls cost what they cost" not in proc.stdout


def test_the_endpoint_note_tells_loopback_from_a_remote_host():
    from cowork_judge.commands._endpoint import endpoint_cost_note

    loopback = "a loopback endpoint: free when it is `cowork-judge sim`, else calls cost what they cost"
    for url in ("http://127.0.0.1:18931/v1", "http://localhost:8000/v1", "http://[::1]:9/v1", "http://127.5.0.1/v1"):
        assert endpoint_cost_note(url) == loopback, url
    for url in ("https://api.openai.com/v1", "http://192.0.2.5:8000/v1", "https://127.0.0.1.example.com/v1"):
        assert endpoint_cost_note(url) == "your endpoint: calls cost what they cost", url
