"""Trial 29 P-2: ``cowork-judge try`` with a ``JUDGE_BASE_URL`` ending in the route the judge adds itself
(``…/v1/chat/completions``) is refused (exit 2) in one sentence of its own: the judge ignores this URL, drop the
route. It read "… drop /chat/completions from it (e.g. …), so the judge ignores it: … (Harbor refuses a trial whose
[verifier.env] needs an unset variable, …)": the fix before the cause, and the half-credential pair's parenthesis
although no variable is unset. The real CLI in a child process; nothing is built before the refusal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import ROLLOUTS

from install.test_try import make_task, passing_credentials

UNSET_PARENTHESIS = "Harbor refuses a trial whose [verifier.env] needs an unset variable"


def _try(tmp_path: Path, **judge_env: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
    env.update(judge_env)
    task = passing_credentials(make_task(tmp_path))
    return subprocess.run([sys.executable, "-m", "cowork_judge", "try", str(task), "--rollout", str(ROLLOUTS / "deck")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_a_base_url_ending_in_the_route_is_refused_in_its_own_sentence(tmp_path):
    proc = _try(tmp_path, JUDGE_API_KEY="sk-sim-rehearsal", JUDGE_BASE_URL="http://127.0.0.1:9/v1/chat/completions")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert ("cowork-judge try: error: JUDGE_API_KEY is set but JUDGE_BASE_URL ends in the route /chat/completions, "
            "which the judge adds itself (every call would go to …/chat/completions/chat/completions), so the judge "
            "ignores this URL: a trial would not reach your endpoint (the judge ends judge:no_credential). Drop "
            "/chat/completions from JUDGE_BASE_URL (e.g. http://127.0.0.1:8000/v1) to judge with your endpoint, or "
            "unset JUDGE_API_KEY to judge with the built-in simulator") in proc.stderr, proc.stderr
    assert UNSET_PARENTHESIS not in proc.stderr and "so the judge ignores it:" not in proc.stderr
    assert "simulator at" not in proc.stdout and "building the wheel" not in proc.stdout


@pytest.mark.parametrize("url, unset", [(None, True), ("127.0.0.1:9/v1", False)])
def test_the_unset_variable_parenthesis_only_when_a_variable_is_unset(tmp_path, url, unset):
    """The other causes keep their words; Harbor's refusal of an unset variable is named only for one."""
    proc = _try(tmp_path, JUDGE_API_KEY="sk-sim-rehearsal", **({"JUDGE_BASE_URL": url} if url else {}))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    cause = "is not set" if unset else "has no scheme (it must begin with http:// or https://), so the judge ignores it"
    assert f"JUDGE_API_KEY is set but JUDGE_BASE_URL {cause}: a trial would not reach your endpoint" in proc.stderr
    assert (UNSET_PARENTHESIS in proc.stderr) is unset, proc.stderr
