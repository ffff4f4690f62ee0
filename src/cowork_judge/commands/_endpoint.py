"""The judge endpoint of the commands that judge on the host (``demo``, ``try``): the caller's,
else the built-in simulator; half a credential pair is refused, never quietly the simulator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from cowork_judge.core.hosts import is_loopback_host, placeholder_host
from cowork_judge.core.simulated import SIM_KEY, SIM_MODEL

if TYPE_CHECKING:
    from cowork_judge.sim import SimServer

class HalfCredentials(ValueError):
    """One of ``JUDGE_API_KEY``/``JUDGE_BASE_URL`` (or their ``OPENAI_*`` fallbacks) without the other.

    Attributes:
        have: the variable that is set, as the caller spelt it (``OPENAI_API_KEY`` when only the
            fallback is set: issue 39, never a JUDGE_* name the caller did not set).
        lack: the variable that completes `have`'s pair (same family).
        ignored: `lack` is set but is not an http(s) URL with a host, so the configuration ignores it.
        other: the OPENAI_* variable set in place of `lack`, which never completes a JUDGE_* pair.
        why: `lack` is set but refused for this reason (a key an HTTP header cannot carry:
            ``holds a line break at character 7 of 23``; trial 6 F22), or None.
        route: the route (``/chat/completions``) the base URL `lack` is refused for ending in, or None;
            the refusal then says that the judge ignores this URL and to drop the route (trial 29 P-2).
    """

    def __init__(self, have: str, lack: str, *, ignored: bool, other: str | None = None, why: str | None = None,
                 route: str | None = None) -> None:
        self.have, self.lack, self.ignored, self.other, self.why, self.route = have, lack, ignored, other, why, route
        super().__init__(self.message("the judge would not reach your endpoint"))

    def message(self, consequence: str, *, simulator: bool = True, passed: bool = True) -> str:
        """The refusal, one line: what is set, what is missing, `consequence`, and the ways out
        (unsetting the half to judge with the built-in simulator only when the command starts
        one: `simulator`; ``batch`` never does). `passed` False: the judge runs in a verifier
        that gets only task.toml's ``[verifier.env]``, which has no line for `lack` (``try``,
        trial 21 P-7), so the way out is that line, never the shell variable alone."""
        if self.other:  # trial finding 12: a pair mixed from both families
            return (f"{self.have} is set and {self.other} is set, but {self.lack} is not: a credential pair comes from "
                    f"one family (JUDGE_* or OPENAI_*), so {self.other} does not complete {self.have}: {consequence}. "
                    f"Set {self.lack}, or unset {self.have} to use the OPENAI_* pair")
        missing, way_out = self._missing(passed)
        if simulator:
            way_out += f", or unset {self.have} to judge with the built-in simulator"
        return f"{self.have} is set but {missing}: {consequence}. {way_out}"

    def _missing(self, passed: bool) -> tuple[str, str]:
        """(what is wrong with `lack`, the way out with the caller's own endpoint) for `message`."""
        if not passed:
            return (f"{self.lack} does not reach the judge: task.toml's [verifier.env] does not pass it",
                    f"Add {self.lack} = \"${{{self.lack}}}\" to [verifier.env] and set {self.lack} to judge with "
                    "your endpoint")
        if self.route:  # trial 29 P-2: the fix last, never followed by "so the judge ignores it"
            return (f"{self.lack} ends in the route {self.route}, which the judge adds itself (every call would go to "
                    f"…{self.route}{self.route}), so the judge ignores this URL",
                    f"Drop {self.route} from {self.lack} (e.g. http://127.0.0.1:8000/v1) to judge with your endpoint")
        missing = (f"{self.lack} {self.why}, so the judge ignores it" if self.why
                   else f"{self.lack} is not an http(s) URL with a host, so the judge ignores it" if self.ignored
                   else f"{self.lack} is not set")
        return missing, f"{'Fix' if self.why else 'Set'} {self.lack} to judge with your endpoint"

    @property
    def unset(self) -> bool:
        """Whether `lack` is not set at all (neither refused nor ignored as set)."""
        return not (self.why or self.ignored)


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
    from cowork_judge.config.judge_config import endpoint_route, load_config

    loaded = load_config(environ)
    config = loaded.config
    if config.has_credentials:
        return True
    has_key = config.api_key is not None and bool(config.api_key.get_secret_value())
    if has_key:
        other = loaded.mixed.get("JUDGE_BASE_URL")
        family = _family(loaded.sources.get("api_key"))
        if other:
            raise HalfCredentials("JUDGE_API_KEY", "JUDGE_BASE_URL", ignored=False, other=other)
        typed = environ.get(f"{family}_BASE_URL")
        raise HalfCredentials(f"{family}_API_KEY", f"{family}_BASE_URL", ignored=bool(typed), other=None,
                              why=loaded.refused.get(f"{family}_BASE_URL"), route=endpoint_route(typed or ""))
    if config.base_url:
        other = loaded.mixed.get("JUDGE_API_KEY")
        family = "JUDGE" if other else _family(loaded.sources.get("base_url"))
        why = loaded.refused.get(f"{family}_API_KEY")  # set, but no HTTP header can carry it
        raise HalfCredentials(f"{family}_BASE_URL", f"{family}_API_KEY", ignored=False, other=other, why=why)
    return False


def _family(source: str | None) -> str:
    """``OPENAI`` when the configuration read the value from an ``OPENAI_*`` variable, else ``JUDGE``."""
    return "OPENAI" if (source or "").removeprefix("env:").startswith("OPENAI_") else "JUDGE"


def start_simulator(environ: dict[str, str]) -> SimServer:
    """Start the built-in simulator (`sim.DemoPolicy`) and point `environ` at it (key, URL; the
    model `SIM_MODEL` only when ``JUDGE_MODEL`` is unset).

    A ``JUDGE_MODEL`` the caller set is kept (issue 39): the judge asks for it, the simulator
    echoes the requested model in its replies, and the result records it as ``judge_model`` —
    never silently another name. `simulator_note` says so on the console.

    Returns:
        The running server; the caller stops it.
    """
    from cowork_judge.sim import DemoPolicy, SimServer

    server = SimServer(DemoPolicy()).start()
    environ.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=server.url)
    if not environ.get("JUDGE_MODEL", "").strip():
        environ["JUDGE_MODEL"] = SIM_MODEL
    return server


def simulator_note(environ: Mapping[str, str]) -> str:
    """What the built-in simulator answers as (after `start_simulator`), for the console line."""
    model = environ.get("JUDGE_MODEL", "").strip()
    if model and model != SIM_MODEL:
        return (f"simulated judge, no model: it answers as your JUDGE_MODEL={model!r}, which the result records as "
                "judge_model")
    return "simulated judge, no model"


def loopback_address(url: str) -> tuple[str, int] | None:
    """(host, port) of `url` when its host is a loopback one (`core.hosts.is_loopback_host`: ``localhost``,
    ``*.localhost``, 127.0.0.0/8, ``::1``), else None; the port is the URL's, else its scheme's (80, 443). A URL
    that cannot be read is None."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
    except ValueError:
        return None
    if not is_loopback_host(host):
        return None
    try:
        port = parts.port
    except ValueError:  # a port that is not a number: the judge's own call says so
        return None
    return host, port if port is not None else 443 if parts.scheme == "https" else 80


def nothing_listens(url: str, variable: str, *, timeout_sec: float = 2.0) -> str | None:
    """Why the loopback endpoint `url` (read from `variable`, e.g. ``JUDGE_BASE_URL``) cannot be judged
    with, in one line with the ways out, or None when it accepts a TCP connection or is not loopback.

    Only a loopback host is probed (trial 23 P-6: a stopped ``cowork-judge sim`` cost ~30 s of retries
    and a row of "Connection error"): a remote endpoint may legitimately refuse or log probes, and
    its own errors name it. The probe opens and closes one connection and sends nothing, so the
    simulator records no request. Waits at most `timeout_sec` seconds.

    A host of a name reserved for examples (`placeholder_host`: the docs' ``https://judge.example.com/v1``, step 8
    pasted as written; trial 36 P-3: 9-22 s of retries, then ``api_error``) is refused the same way, unprobed.
    """
    import socket

    if (reserved := placeholder_host(url)) is not None:
        family = "OPENAI" if variable.startswith("OPENAI_") else "JUDGE"
        return (f"{variable} names {reserved}, a host reserved for examples (RFC 2606), as in the docs' step 8: "
                f"set it to your endpoint, or unset {family}_BASE_URL/{family}_API_KEY to use the built-in simulator")
    address = loopback_address(url)
    if address is None:
        return None
    host, port = address
    try:
        socket.create_connection(address, timeout=timeout_sec).close()
    except OSError as exc:
        shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        family = "OPENAI" if variable.startswith("OPENAI_") else "JUDGE"
        why = "" if isinstance(exc, ConnectionRefusedError) else f" ({exc.strerror or exc})"
        return (f"nothing listens at {shown} ({variable}){why}: start `cowork-judge sim --port {port}` (with "
                f"--oracle FILE to rehearse verdicts) or unset {family}_BASE_URL/{family}_API_KEY to use the "
                "built-in simulator")
    return None


def resolved_endpoint(environ: Mapping[str, str]) -> tuple[str, str]:
    """(the base URL the judge resolves from `environ`, the variable it came from as the caller set it:
    ``JUDGE_BASE_URL`` or its ``OPENAI_BASE_URL`` fallback), read through `load_config` as the judge reads them;
    ("", "JUDGE_BASE_URL") when none is set. For the endpoint line and `nothing_listens` of ``try`` and ``demo``."""
    from cowork_judge.config.judge_config import load_config

    loaded = load_config(environ)
    return loaded.config.base_url or "", loaded.sources.get("base_url", "").removeprefix("env:") or "JUDGE_BASE_URL"


def simulator_model(url: str, api_key: str, *, timeout_sec: float = 2.0) -> str | None:
    """The model id a loopback endpoint `url` serves when it is ``cowork-judge sim`` (trial 25 P-3), else None.

    Asks ``GET <url>/models`` with `api_key` (the simulator lists one model, ``owned_by``
    `cowork_judge.sim.server.OWNED_BY`; it records the request apart from its model requests). A URL that is not
    loopback is never asked (a real endpoint's run is left as it is); any error, another answer or another owner
    is None. Waits at most `timeout_sec` seconds.
    """
    import json
    import urllib.request

    from cowork_judge.sim.server import OWNED_BY

    if loopback_address(url) is None:
        return None
    request = urllib.request.Request(url.rstrip("/") + "/models", headers={"Authorization": f"Bearer {api_key}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout_sec) as reply:  # noqa: S310 - a loopback http(s) URL
            listed = json.loads(reply.read(65536)).get("data") or []
    except (OSError, ValueError, AttributeError):
        return None
    first = listed[0] if isinstance(listed, list) and listed else None
    if not isinstance(first, dict) or first.get("owned_by") != OWNED_BY or not str(first.get("id") or "").strip():
        return None
    return str(first["id"])


def endpoint_cost_note(url: str) -> str:
    """The parenthesis of ``try``'s endpoint line for the caller's `url` (trial 17 P-8).

    A loopback host (``localhost``, 127.0.0.0/8, ``::1``) may be a ``cowork-judge sim`` (free) or a
    local proxy to a paid model: the note says both, since telling them apart would take a request
    the simulator logs. Any other host is "your endpoint: calls cost what they cost"."""
    if loopback_address(url) is not None:
        return "a loopback endpoint: free when it is `cowork-judge sim`, else calls cost what they cost"
    return "your endpoint: calls cost what they cost"
