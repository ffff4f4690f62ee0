"""Trial 39 P-2: a run in error whose unjudged hurdle zeroed the reward printed ``fatal: A hurdle zeroed the reward``
before ``status: error``, leading with the hurdle for what was a packaging slip. A run in error now says its status
first, then the hurdle; a successful run keeps the hurdle right under the reward (trial 17 P-2). The real
``cowork-judge try`` in a sandbox against the simulator over HTTP."""

from __future__ import annotations

from install.test_try_output import inited_task, try_on_sim

ROWS = [
    {"id": "C-RAYLEIGH", "description": "Names Rayleigh scattering.", "weight": 1, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh", "source": "response"}},
    {"id": "H-REFUSAL", "description": "The answer refuses.", "weight": 0, "hurdle": True, "judge_method": "code",
     "code_method_name": "regex_matches_typo", "code_method_params": {"pattern": "I cannot", "source": "response"}},
]


def test_an_error_says_its_status_before_the_hurdle_it_zeroed(tmp_path, sandbox_ready):
    task = inited_task(tmp_path / "c", ROWS, "Explain why the sky is blue.\n")
    answer = tmp_path / "answer.txt"
    answer.write_text("Rayleigh scattering.\n")
    proc = try_on_sim(task, tmp_path, "--final-message", str(answer))
    lines = proc.stdout.splitlines()
    status = next(i for i, line in enumerate(lines) if line.startswith("status: "))
    fatal = next(i for i, line in enumerate(lines) if line.startswith("fatal: "))
    assert lines[status].startswith("status: error"), proc.stdout + proc.stderr
    assert lines[status - 1].startswith("reward: ") and fatal == status + 1, proc.stdout
    assert "H-REFUSAL was not judged" in lines[fatal], lines[fatal]
