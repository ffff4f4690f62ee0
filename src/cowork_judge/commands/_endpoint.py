"""The judge endpoint of the commands that judge on the host (``demo``, ``try``): the caller's,
else the built-in simulator; half a credential pair is refused, never quietly the simulator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cowork_judge.sim import SimServer

SIM_KEY = "sim-demo-key"
"""The API key the built-in simulator accepts when a command starts it."""
SIM_MODEL = "simulated-judge"
"""The model name a run against the built-in simulator records."""


class HalfCredentials(ValueError):
    """One of ``JUDGE_API_KEY``/``JUDGE_BASE_URL`` (or their ``OPENAI_*`` fallbacks) without the other.

    Attributes:
        have: the variable that is set.
        lack: the variable the judge does not have.
        ignored: `lack` is set but is not an http(s) URL with a host, so the configuration ignores it.
        other: the OPENAI_* variable set in place of `lack`, which never completes a JUDGE_* pair.
    """

    def __init__(self, have: str, lack: str, *, ignored: bool, other: str | None = None) -> None:
        self.have, self.lack, self.ignored, self.other = have, lack, ignored, other
        super().__init__(self.message("the judge would not reach your endpoint"))

    def message(self, consequence: str) -> str:
        """The refusal, one line: what is set, what is missing, `consequence`, and the two ways out."""
        if self.other:  # trial finding 12: a pair mixed from both families
            return (f"{self.have} is set and {self.other} is set, but {self.lack} is not: a credential pair comes from "
                    f"one family (JUDGE_* or OPENAI_*), so {self.other} does not complete {self.have}: {consequence}. "
                    f"Set {self.lack}, or unset {self.have} to use the OPENAI_* pair")
        missing = (f"{self.lack} is not an http(s) URL with a host, so the judge ignores it" if self.ignored
                   else f"{self.lack} is not")
        return (f"{self.have} is set (or its OPENAI_* fallback) but {missing}: {consequence}. Set both to judge with "
                f"your endpoint, or unset {self.have} to judge with the built-in simulator")


def caller_endpoint(environ: Mapping[str, str]) -> bool:
    """Whether `environ` configures a judge endpoint of the caller's: True for a whole credential
    pair, False for none (the command then starts the built-in simulator, `start_simulator`).

    A gateway that injects the key (``JUDGE_GATEWAY_AUTH``) counts as a key; a base URL the
    configuration ignores (not an http(s) URL with a host) counts as none. Read through
    `cowork_judge.config.judge_config.load_config`, as the judge reads them.

    Raises:
        HalfCredentials: one half without the other; judging with the simulator instead would
            hide that the caller's endpoint is not reached.
    """
    from cowork_judge.config.judge_config import load_config

    loaded = load_config(environ)
    config = loaded.config
    if config.has_credentials:
        return True
    has_key = config.api_key is not None and bool(config.api_key.get_secret_value())
    if has_key:
        other = loaded.mixed.get("JUDGE_BASE_URL")
        typed = environ.get("JUDGE_BASE_URL") or (None if other else environ.get("OPENAI_BASE_URL"))
        raise HalfCredentials("JUDGE_API_KEY", "JUDGE_BASE_URL", ignored=bool(typed), other=other)
    if config.base_url:
        raise HalfCredentials("JUDGE_BASE_URL", "JUDGE_API_KEY", ignored=False, other=loaded.mixed.get("JUDGE_API_KEY"))
    return False


def start_simulator(environ: dict[str, str]) -> SimServer:
    """Start the built-in simulator (`sim.DemoPolicy`) and point `environ` at it (key, URL, model).

    Returns:
        The running server; the caller stops it.
    """
    from cowork_judge.sim import DemoPolicy, SimServer

    server = SimServer(DemoPolicy()).start()
    environ.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=server.url, JUDGE_MODEL=SIM_MODEL)
    return server
