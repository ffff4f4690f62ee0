"""Trial 24 P-3: with JUDGE_VERDICT_CACHE set, an edited ``sim --oracle`` file is never asked for the rows the
cache answers. ``try``'s verdict cache line (printed under the reward by ``try_._report``) now says so when the
endpoint is a loopback one other than the built-in simulator; a remote endpoint, the built-in simulator, or no
reused verdict keep the line as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cowork_judge.commands import try_
from cowork_judge._util.procs import ProcResult
from install.test_try import cached_rows_outcome

NOTE = "(JUDGE_VERDICT_CACHE: an edited oracle is not asked for these; set JUDGE_VERDICT_CACHE=off to re-ask)"


def _printed(tmp_path: Path, capsys: Any, cached: list[bool], url: str, *, builtin: bool = False) -> str:
    outcome, staged = cached_rows_outcome(tmp_path, cached)
    env = {"JUDGE_VERDICT_CACHE": "/opt/cowork-judge/verdict-cache", "JUDGE_BASE_URL": url}
    line = try_._cache_line(outcome, env, sandboxed=True, judge_home=tmp_path / "home", builtin=builtin)
    try_._report(outcome, staged, ProcResult(returncode=0, stdout="", stderr="", seconds=1.0), 1.0, line)
    return capsys.readouterr().out


def test_reused_verdicts_from_a_loopback_sim_say_the_oracle_is_not_asked(tmp_path, capsys):
    out = _printed(tmp_path, capsys, [True, True, False], "http://127.0.0.1:8131/v1")
    line = next(x for x in out.splitlines() if x.startswith("verdict cache: 2 of 3 row verdict(s) reused"))
    assert line.endswith(NOTE)


def test_a_remote_endpoint_the_builtin_sim_or_nothing_reused_keep_the_line(tmp_path, capsys):
    for cached, url, builtin in (([True], "https://api.example.com/v1", False),
                                 ([True], "http://127.0.0.1:9/v1", True),
                                 ([False, False], "http://localhost:8131/v1", False)):
        out = _printed(tmp_path, capsys, cached, url, builtin=builtin)
        assert "verdict cache:" in out and NOTE not in out, (cached, url, builtin)
