"""The built-in simulator's mark on a run and the one note that says its reward checks the plumbing.

One owner for the wording (trial 14 P1-2) that ``demo``, ``try`` and the report page
(`fleet.report`) say under a reward the built-in simulator judged (trial 27 P-5, P-8).
"""

from __future__ import annotations

from cowork_judge.core.hosts import is_loopback_host

SIM_MODEL = "simulated-judge"
"""The model name a run against the built-in simulator records (``judge_model``), unless JUDGE_MODEL was set."""

SIM_KEY = "sim-demo-key"
"""The API key ``try`` and ``demo`` give the judge for the built-in simulator (`commands._endpoint.start_simulator`);
never a real key. With a loopback base URL it marks the built-in simulator to the verdict cache (`builtin_simulator`)."""

SIM_ENDPOINT = "cowork-judge:built-in-simulator"
"""The endpoint part of a verdict-cache key for the built-in simulator (`run.verdict_cache.judge_settings`; trial 33
P-2): it listens on a new loopback port each run, so keyed by its URL no verdict of it was ever reused."""

SIMULATED_REWARD_NOTE = (
    "note: the built-in simulator judged this run, not a model. Its verdicts are word overlap between each row and "
    "everything the judge was shown, the task prompt included, and it finds no violation for any hurdle or "
    "deduction. So the reward checks the task's plumbing, not the rollout: an empty deliverable can score like a "
    "good one. To rehearse verdicts, serve `cowork-judge sim --oracle FILE` and set JUDGE_BASE_URL/JUDGE_API_KEY "
    "to it (docs/simulator.md), or use your endpoint.")
"""Said after a `try` or `demo` the built-in simulator judged (trial 14 P1-2), where the reward is read."""


def builtin_simulator(base_url: str | None, api_key: str | None) -> bool:
    """Whether a judge configuration points at the built-in simulator ``try`` and ``demo`` start: the key `SIM_KEY`
    and a loopback host in `base_url` (`core.hosts.is_loopback_host`: ``localhost``, ``*.localhost``, 127.0.0.0/8,
    ``::1``; the URL read stripped). Pure; never raises."""
    from urllib.parse import urlsplit

    if api_key != SIM_KEY or not base_url:
        return False
    try:
        return is_loopback_host(urlsplit(base_url.strip()).hostname or "")
    except ValueError:  # a URL urlsplit cannot read (``http://[bad/v1``)
        return False


def simulated_note(*, judge_called: bool | None, judged_rows: int) -> str | None:
    """`SIMULATED_REWARD_NOTE` for a run the built-in simulator judged, or None when it judged no row
    (`judged_rows` 0: trial 16 P-10, a rubric that did not load) or was never asked (`judge_called` False: trial 26
    P-4, nothing delivered, every row decided without a model). ``judge_called`` None (not recorded) counts as asked."""
    if judge_called is False or judged_rows <= 0:
        return None
    return SIMULATED_REWARD_NOTE


__all__ = ["SIMULATED_REWARD_NOTE", "SIM_ENDPOINT", "SIM_KEY", "SIM_MODEL", "builtin_simulator", "simulated_note"]
