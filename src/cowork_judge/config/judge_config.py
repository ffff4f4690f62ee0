"""Configuration: every knob read in ONE place into one typed, frozen object.

`load_config(environ)` parses the environment (names from SPEC §13, kept as thousands of
task packages declare them). A bad value never crashes: it falls back to the default and
leaves a warning. Each value remembers where it came from (`env:NAME`, `default`,
`invalid:NAME → default`) so `cowork-judge config` can explain itself. This is the only
module that reads the judge's environment variables (the container roots included).

Each setting is declared once, by `cowork_judge.core.knobs.knob(...)` in its field (variable,
parser, effect on a stored result, secret, cap, meaning); the reader, `ENV_NAMES`, `CAPS`,
`masked`, the redactor's list and `config.effects.EFFECTS` are read from those declarations
(`settings`). docs/development.md, "Adding a setting".
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator
from pydantic.fields import FieldInfo

from cowork_judge.transport.calls import GATEWAY_NO_AUTH_KEY, GATEWAY_PLACEHOLDER_KEY
from cowork_judge.core.identity import RunIdentity
from cowork_judge.core.knobs import (DERIVED, FALSY, OMIT, TRUTHY, WHEN, Effect, Knob, choice, flag, integer, knob, knob_table,
                                     label, nested_models, number, setting_value, text)
from cowork_judge.core.cost import Price
from cowork_judge.core.retry import RetryPolicy
from cowork_judge.core.scoring import ScoringPolicy
from cowork_judge.safety.redact import MIN_CREDENTIAL_LEN, MIN_SECRET_LEN, Redactor, mask_url, url_shape
from cowork_judge.config.backends import BACKENDS, DEFAULT_BACKEND, backend_spec
from cowork_judge.config.panel import PanelJudge, key_problem, read_panel, read_prices, resolve_keys
from cowork_judge.transport.store_url import UnparsableStoreUrl, store_address

MAX_JITTER_SHARE = 0.1
"""A start jitter never exceeds this share of JUDGE_DEADLINE (the fleet values: 180 s of 1800 s)."""
FLEET_START_JITTER_SEC = 180
"""JUDGE_START_JITTER of a fleet trial: ``templates/test.sh`` exports it when unset and `cowork-judge init` writes it
into ``[verifier.env]``. Independent containers started together spread their first wave over it; a hand
``cowork-judge run`` (one process, nothing to spread) uses the field default 0 (issue 26)."""
FLEET_WORKFLOW_START_JITTER_SEC = 30
"""JUDGE_WORKFLOW_START_JITTER of a fleet trial (``templates/test.sh``), as `FLEET_START_JITTER_SEC`."""


INSTANCE_HEADER = "X-Cowork-Judge-Instance"
"""The HTTP header naming the instance (opt-in, JUDGE_SEND_INSTANCE_ID); `cowork_judge.sim` reads it for --oracle-dir."""


# --------------------------------------------------------------------------- parsers of the settings below
# (the common ones are `core.knobs`: integer, number, flag, choice, text)


def _shown_default(value: Any) -> str:
    """A default in a warning: ``(none)`` for an unset one, else its repr."""
    return "(none)" if value is None else repr(value)


def _share(raw: str) -> float | None:
    if not raw.strip():
        return None
    return number(0.0, strict=True, maximum=1.0)(raw)


def _cache_dir(raw: str) -> str | None:
    """A folder path; ``0``/``off``/``false``/``no`` = no cache.

    Raises:
        ValueError: the path names something that exists and is not a folder (a regular file): no
            verdict could be stored there, so the cache would be off without a word; or it is a yes
            word (``on``, ``1``…), which would have made a folder of that name.
    """
    value = raw.strip()
    if value.lower() in FALSY:
        return None
    if value.lower() in TRUTHY:  # trial 6 F17: "on" made a cache folder named "on" in the working folder
        raise ValueError("is a yes/no word, not a folder: give the folder the verdicts are kept in (a volume that "
                         "outlives a trial), or 0 for no cache")
    path = os.path.expanduser(value)
    if os.path.exists(path) and not os.path.isdir(path):
        raise ValueError("names an existing file, not a folder: no verdict can be cached there (give a folder, "
                         "or 0 for no cache)")
    return value


def _store_url(raw: str) -> SecretStr:
    """A Redis URL (``redis://``, ``rediss://``, ``unix://``), kept secret (it may hold a
    password), that makes the redis client dial the host and port written in it
    (`transport.store_url.store_address`).

    Raises:
        UnparsableStoreUrl: (a ValueError) another scheme, or a URL the client would read as
            another store (an unencoded ``@ : / ? #`` in the password); its words name no
            part of the password.
    """
    value = raw.strip()
    store_address(value)
    return SecretStr(value)


def _files(raw: str) -> tuple[str, ...]:
    return tuple(p for p in raw.replace(",", " ").split() if p)


def _sampled(read: Callable[[JudgeConfig], Any]) -> Callable[[JudgeConfig], Any]:
    """Only a sampled run (JUDGE_SAMPLES > 1 or JUDGE_PANEL) records it: a run asking every row once keeps its fingerprint."""
    return lambda c: read(c) if c.sampled else OMIT


PATHS = "where the files are; what they hold is fingerprinted (the rubric, prompt and instruction here, the deliverables by the batch's instance fingerprint)"
RENDERER = "which renderer makes deck evidence; whether it is made is recorded (judge_evidence_pages)"


class JudgeConfig(BaseModel):
    """All knobs of one judge run. Times are seconds; counts are positive integers."""

    model_config = ConfigDict(frozen=True)

    api_key: SecretStr | None = knob(None, env=("JUDGE_API_KEY", "OPENAI_API_KEY"), parse=None, secret="key",
        effect=Effect.none("a credential: which key pays, not what is answered"),
        doc=(
        "JUDGE_API_KEY, else OPENAI_API_KEY: key of the judge endpoint (OpenAI-compatible); the resolved pair is "
        "exported under both names. The pair comes from one family: when JUDGE_API_KEY or JUDGE_BASE_URL is set, "
        "OPENAI_* never completes it (a warning names both variables), so a key never goes to the other family's "
        "URL. Missing while a row needs a model ⇒ `judge:no_credential`. A key holding a character an HTTP header "
        "cannot carry (non-ASCII, a line break, another control character) is ignored with a warning naming the "
        "variable and the character's position (never the key): rows that need a model end `judge:no_credential` at "
        "once, without retries. Surrounding spaces are stripped."))
    base_url: str | None = knob(None, env=("JUDGE_BASE_URL", "OPENAI_BASE_URL"), parse=None, secret="url",
        effect=Effect.verdict("endpoint", "the endpoint answers (masked: a token in the URL is not part of it)",
                              lambda c: mask_url(c.base_url) if c.base_url else None),
        doc=(
        "JUDGE_BASE_URL, else OPENAI_BASE_URL: URL of the judge endpoint (OpenAI-compatible), exported under both names"
        " like the key. A value that is not an `http://` or `https://` URL with a host (`127.0.0.1:8000/v1`) is "
        "ignored with a warning that says what is wrong (no scheme, another scheme, no host, a bad port) — rows that "
        "need a model end `judge:no_credential` at once, and the run's `exit_reason` names the same; no scheme is "
        "guessed (`http://` would send the key unencrypted to a remote host). A URL ending in a route the judge adds "
        "itself (`/chat/completions`, `/responses`, `/messages`: the full route pasted, "
        "`http://127.0.0.1:8000/v1/chat/completions`) is ignored the same way, the warning naming the route to drop "
        "(`cowork-judge try` refuses to start, exit 2): write the base, `http://127.0.0.1:8000/v1`."))
    model: str = knob("gpt-5.5", env="JUDGE_MODEL", parse=text, effect=Effect.verdict("model", "the model answers"),
        doc="JUDGE_MODEL: judge model name.")
    backend: str = knob(DEFAULT_BACKEND, env="JUDGE_BACKEND", parse=choice(*BACKENDS), effect=Effect.verdict("backend", "the agent that reads the deliverables"),
        doc=(
        "JUDGE_BACKEND: agentic backend, a name of `config.backends.BACKENDS`: `openai` (built in: Chat Completions + "
        "workspace tools), `codex` (`codex exec`), `claude` (`claude -p`)."))
    batch: int = knob(4, ge=1, env="JUDGE_BATCH", parse=integer(1), effect=Effect.verdict("sampling.batch", "rows per conversation"),
        cap=(50, "a block of more rows than this is one conversation no judge answers reliably"),
        doc="JUDGE_BATCH: agentic rows per block (one workspace, one conversation).")
    concurrency: int = knob(2, ge=1, env="JUDGE_CONCURRENCY", parse=integer(1), effect=Effect.none(WHEN),
        cap=(32, "blocks in flight multiply a fleet's peak request rate; past this one job alone melts a shared key"),
        doc=(
        "JUDGE_CONCURRENCY: blocks in flight — the direct multiplier of a fleet's peak request rate — and so the "
        "agentic requests in flight: a block sends one request at a time, and one that waits out a random 429 lends "
        "its lane and takes one back before it sends again, so the count never exceeds this (measured at the "
        "simulator, docs/performance/rate-limits.md). Each judge of JUDGE_PANEL runs at its own JUDGE_CONCURRENCY; "
        "the workflow segment (deck pages), which runs before the agentic one, is bounded by "
        "JUDGE_WORKFLOW_CONCURRENCY."))
    per_timeout_sec: float = knob(150.0, gt=0, env="JUDGE_PER_TIMEOUT", parse=number(0, strict=True, maximum=24 * 3600.0), effect=Effect.none(WHEN),
        doc=(
        "JUDGE_PER_TIMEOUT: seconds per attempt (call); a block gets `2 ×` this."))
    resplit: bool = knob(True, env="JUDGE_RESPLIT", parse=flag, effect=Effect.verdict("sampling.resplit", "a failed block is asked again row by row"),
        doc="JUDGE_RESPLIT: re-judge a failed block row by row.")
    deadline_sec: float = knob(1800.0, gt=0, env="JUDGE_DEADLINE", parse=number(0, strict=True, maximum=7 * 24 * 3600.0, digits=True),
        effect=Effect.none(WHEN),
        doc=(
        "JUDGE_DEADLINE: seconds for the whole run, from process start; rows not judged by then are unjudged "
        "`deadline`. Written in digits (`3600`, `3600.5`): `templates/test.sh` reads the same variable to stop a "
        "judge that overran it by 60 s, and a shell reads no exponent or sign. The guard's scan of the agent's text counts "
        "against it: at most 4 MiB per text file and 8 Mi characters per run, ~5-12 s of one core per MB (guard.md, Cost "
        "and limits). A run still busy 2.5 s past it is ended by the watchdog, whose message says how far past it fired."))
    start_jitter_sec: float = knob(0.0, ge=0, env="JUDGE_START_JITTER", parse=number(0), effect=Effect.none(WHEN),
        doc=(
        "JUDGE_START_JITTER: first-wave blocks wait `uniform(0, N)` s (spreads a fleet's burst). 0 for a hand run; "
        "`templates/test.sh` and the `task.toml` that init writes set the fleet value 180 s."))
    max_turns: int = knob(16, ge=1, env="JUDGE_MAX_TURNS", parse=integer(1), effect=Effect.verdict("sampling.max_turns", "turns per attempt"),
        cap=(64, "model turns per attempt; each re-sends the conversation"),
        doc=(
        "JUDGE_MAX_TURNS: model turns per agent attempt (`openai`; `claude` as `--max-turns`; `codex` has no turn "
        "limit: the per-call timeout bounds it)."))
    lenient_delivery: bool = knob(False, env="JUDGE_LENIENT_DELIVERY", parse=flag, effect=Effect.verdict("sampling.lenient_delivery", "which files are judged"),
        doc=(
        "JUDGE_LENIENT_DELIVERY: also score files at the `/app` root and in `/output`."))
    chat_fallback: bool = knob(True, env="JUDGE_CHAT_FALLBACK", parse=flag,
        effect=Effect.verdict("sampling.chat_fallback", "what is judged when no file was delivered"),
        doc="JUDGE_CHAT_FALLBACK: no files but a final message ⇒ judge the message. Off: such a run is nothing delivered, "
            "except the code rows with \"source\": \"response\", which read the final message in every run. A deck task "
            "(a deck row, or a prompt naming a .pptx) judged this way warns (`delivery: deck task: no file was delivered; "
            "N row(s) … were judged on the agent's final message`) for model-judged rows (not ppt_judge rows, a judged miss "
            "with no deck) without a deck gate (a locate_deck "
            "row in their depends_on, docs/rubric.md; lint-rubric M015): a warning only, the reward is unchanged.")
    evidence_sec: float = knob(180.0, ge=0, env="JUDGE_EVIDENCE", parse=number(0),
        effect=Effect.verdict("sampling.evidence", "deck evidence on or off (its budget decides only whether it is reached)",
                              lambda c: c.evidence_sec > 0),
        doc=(
        "JUDGE_EVIDENCE: seconds for deck evidence (structure + rendering), at most a third of the time left "
        "(see Evidence and the deadline below); `0` = off."))
    metric_id: str = knob("rubric_llm_judge", env="JUDGE_METRIC_ID", parse=label, effect=Effect.score("the document's metric_id"),
        doc="JUDGE_METRIC_ID: written to the result.")
    aux_files: tuple[str, ...] = knob((), env="JUDGE_AUX_FILES", parse=_files,
        effect=Effect.verdict("sampling.aux_files", "files copied into every judge workspace", lambda c: list(c.aux_files)),
        doc="JUDGE_AUX_FILES: extra tests/ files copied into every judge workspace (names relative to tests/); an "
            "entry outside tests/ or not found is not copied, and details.warnings names it.")
    instruction_file: str | None = knob(None, env="JUDGE_INSTRUCTION_FILE", parse=text,
        effect=Effect.verdict("instruction_sha256", "the judge instruction (by its text)", DERIVED),
        doc=(
        "JUDGE_INSTRUCTION_FILE: judge instruction (else `judge_instruction.md`, `judge_instructions.md`, "
        "`rubric_instruction.md`, `judge_prompt.md` in tests/, else the built-in one)."))
    skip: bool = knob(False, env="JUDGE_SKIP", parse=flag, effect=Effect.verdict("skip", "JUDGE_SKIP archives without judging (reward SKIPPED)"),
        doc="JUDGE_SKIP: archive only; `reward.txt` = `SKIPPED` (Harbor then excludes the trial).")
    workflow_concurrency: int = knob(4, ge=1, env="JUDGE_WORKFLOW_CONCURRENCY", parse=integer(1), effect=Effect.none(WHEN),
        cap=(32, "workflow calls in flight multiply a fleet's peak request rate"),
        doc=(
        "JUDGE_WORKFLOW_CONCURRENCY: in-flight model calls of the workflow segment."))
    workflow_deadline_share: float | None = knob(None, gt=0, le=1, env="JUDGE_WORKFLOW_DEADLINE_SHARE", parse=_share, effect=Effect.none(WHEN),
        doc=(
        "JUDGE_WORKFLOW_DEADLINE_SHARE: fixed share of the remaining time for workflows (escape hatch); unset = "
        "adaptive."))
    workflow_start_jitter_sec: float = knob(0.0, ge=0, env="JUDGE_WORKFLOW_START_JITTER", parse=number(0), effect=Effect.none(WHEN),
        doc=(
        "JUDGE_WORKFLOW_START_JITTER: first-wave workflow calls wait `uniform(0, N)` s. 0 for a hand run; "
        "`templates/test.sh` sets the fleet value 30 s."))
    code_timeout_sec: float = knob(60.0, gt=0, env="JUDGE_CODE_TIMEOUT", parse=number(0, strict=True), effect=Effect.none(WHEN),
        doc="JUDGE_CODE_TIMEOUT: seconds per code method.")
    response_file: str | None = knob(None, env="JUDGE_RESPONSE_FILE", parse=text,
        effect=Effect.verdict("response_file", "which file holds the agent's final message"),
        doc=(
        "JUDGE_RESPONSE_FILE: file holding the agent's final message (else `trajectory.json`, `final_answer.txt`, "
        "`response.txt`); one in the task's tests/ folder (the verifier's own files) is refused, unread."))
    soffice: str | None = knob(None, env="JUDGE_SOFFICE_PATH", parse=text, effect=Effect.none(RENDERER),
        doc=(
        "JUDGE_SOFFICE_PATH: LibreOffice for deck evidence (default: on PATH, else the usual install paths such as "
        "`/usr/lib/libreoffice/program`)."))
    chromium: str | None = knob(None, env="JUDGE_CHROMIUM_PATH", parse=text, effect=Effect.none(RENDERER),
        doc=(
        "JUDGE_CHROMIUM_PATH: Chromium for HTML decks (default: on PATH, else the usual install paths such as "
        "`/usr/bin`)."))
    requested_version: str | None = knob(None, env="COWORK_JUDGE_VERSION", parse=text,
        effect=Effect.none("what test.sh installed; the version that judged is in the fingerprint"),
        doc=(
        "COWORK_JUDGE_VERSION: the version test.sh installed, recorded as `requested_version`."))
    version_source: Literal["injection", "placeholder", "package"] = knob("package", env="COWORK_JUDGE_VERSION_SOURCE", parse=choice("injection", "placeholder", "package"),
        effect=Effect.none("where test.sh's version came from; the version that judged is in the fingerprint"),
        doc=(
        "COWORK_JUDGE_VERSION_SOURCE: where that version came from, recorded as `version_source`."))
    app_dir: str = knob("/app", env="JUDGE_APP_DIR", parse=text, effect=Effect.none(PATHS),
        doc="JUDGE_APP_DIR: the agent's workdir (deliverables in output/; also `--app-dir`).")
    logs_dir: str = knob("/logs", env="JUDGE_LOGS_DIR", parse=text, effect=Effect.none(PATHS),
        doc="JUDGE_LOGS_DIR: holds agent/ and verifier/ (also `--logs-dir`); refused (exit 2) when it is or lies inside "
            "the app's output folder.")
    tests_dir: str = knob("/tests", env="JUDGE_TESTS_DIR", parse=text, effect=Effect.none(PATHS),
        doc="JUDGE_TESTS_DIR: the task's tests dir with rubric.json (also `--tests-dir`).")
    work_dir: str | None = knob(None, env="JUDGE_WORK_DIR", parse=text, effect=Effect.none(PATHS),
        doc=(
        "JUDGE_WORK_DIR: scratch for workspaces (default: a new temp dir, removed on every exit path, SIGTERM and the "
        "watchdog's included). A given dir is kept; one another live run holds gets a private `cowork-judge-*` "
        "subfolder, removed at the end (with a warning). One that is a file or cannot be made is replaced by a temp dir "
        "(with a warning; `--work-dir` is refused, exit 2); one inside the app's output folder is refused (exit 2)."))
    gateway_auth: Literal["off", "none", "placeholder"] = knob(
        "off", env="JUDGE_GATEWAY_AUTH", parse=choice("off", "none", "placeholder"),
        effect=Effect.none("a credential: how the gateway is authenticated"), doc="JUDGE_GATEWAY_AUTH: a hosted gateway (Harbor Hub's default credential mode) injects the API key "
                           "per destination host, so the sandbox may see none. none = without JUDGE_API_KEY send no "
                           "Authorization header; placeholder = send a fixed placeholder key for the gateway to replace; "
                           "off = JUDGE_API_KEY is required. A key that is set is always sent.")
    alt_output_dir: str = knob("/output", env="JUDGE_ALT_OUTPUT_DIR", parse=text, effect=Effect.none(PATHS),
        doc="JUDGE_ALT_OUTPUT_DIR: extra output dir read by lenient delivery.")
    verdict_cache_dir: str | None = knob(None, env="JUDGE_VERDICT_CACHE", parse=_cache_dir,
        effect=Effect.none("a cached verdict is the verdict of the same question by the same judge (its key)"),
        doc="JUDGE_VERDICT_CACHE: a folder of cached verdicts; a re-judge of "
                                          "the same deliverable by the same judge (model, settings and endpoint: the base URL, without "
                                          "credentials) asks only rows whose text changed (run/verdict_cache.py). Off for `cowork-judge run` unless set; `cowork-judge batch` "
                                          "uses <out>/verdict-cache unless set (0/off disables it there; a yes word such as on or 1 means that folder); "
                                          "`calibrate --out` caches only when asked, a yes word meaning <out>/verdict-cache there too. "
                                          "A path naming an existing file (not a folder) is invalid, and so is a yes word "
                                          "such as on or 1 for a run (it would name a folder). A folder the run cannot "
                                          "create or write is a warning in the result (no verdict is stored there).")
    instance_id: str | None = knob(None, env="JUDGE_INSTANCE_ID", parse=label, effect=Effect.none("a label sent to the endpoint (JUDGE_SEND_INSTANCE_ID)"),
        doc="JUDGE_INSTANCE_ID: a name of the instance being judged (`batch` sets "
                                    "it to the instance's name); sent to the endpoint only with JUDGE_SEND_INSTANCE_ID.")
    send_instance_id: bool = knob(False, env="JUDGE_SEND_INSTANCE_ID", parse=flag, effect=Effect.none("whether that label is sent"),
        doc="JUDGE_SEND_INSTANCE_ID: send JUDGE_INSTANCE_ID with every "
                                   "chat-completions call as the HTTP header X-Cowork-Judge-Instance (opt-in; the simulator's "
                                   "--oracle-dir routes by it).")

    @property
    def request_headers(self) -> dict[str, str]:
        """Extra HTTP headers of every model call: ``X-Cowork-Judge-Instance`` when
        JUDGE_SEND_INSTANCE_ID is on and JUDGE_INSTANCE_ID is set, else none."""
        if self.send_instance_id and self.instance_id:
            return {INSTANCE_HEADER: self.instance_id}
        return {}
    guard: Literal["off", "flag", "penalize"] = knob(
        "flag", env="JUDGE_GUARD", parse=choice("off", "flag", "penalize"),
        effect=Effect.score("flag or penalize is applied to the stored findings; off does not scan (in the fingerprint)",
                            "guard_scan", lambda c: c.guard != "off"), doc="JUDGE_GUARD: the deterministic guard over what the agent wrote (final message, deliverables' "
                            "text, deck text incl. notes and invisible text, file names). off = no scan; flag = findings in "
                            "result.json `guard`; penalize = also reward 0 when it flags (the rows are still judged and scored).")
    guard_row: bool = knob(False, env="JUDGE_GUARD_ROW", parse=flag, effect=Effect.verdict("guard_row", "adds a model-judged row to the agentic blocks"),
        doc="JUDGE_GUARD_ROW: add an unweighted model-judged row \"did the agent address the "
                                               "evaluator?\" to the agentic rows (recorded in `guard`, never scored).")
    scoring: ScoringPolicy = Field(default_factory=ScoringPolicy, description=(
        "The knobs that shape the reward (`core.scoring.ScoringPolicy`, their one home: defaults, bounds, meanings)."))
    retry: RetryPolicy = Field(default_factory=RetryPolicy, description=(
        "How blocks and model calls are retried (`core.retry.RetryPolicy`, the one home of JUDGE_MAX_TRIES and "
        "JUDGE_RETRY_BACKOFF_MAX)."))
    # ---- sampling, panels and prices (issue 28; docs/sampling.md) ----
    samples: int = knob(1, ge=1, env="JUDGE_SAMPLES", parse=integer(1), effect=Effect.verdict("sampling.samples", "asks per row", _sampled(lambda c: c.samples)),
        cap=(9, "each sample is a whole judging of the row (calls × k); the median of more moves no further"),
        doc=(
        "JUDGE_SAMPLES: asks of each row (agentic block, ppt_judge page cell and content pass, answer_match decision) "
        "per judge, reduced to one verdict: binary by majority (a tie fails closed for negative rows and hurdles, is a "
        "miss otherwise), graded by the lower median level, N/A by majority. 1 = ask once (results as before)."))
    sampling: Literal["adaptive", "fixed"] = knob("adaptive", env="JUDGE_SAMPLING", parse=choice("adaptive", "fixed"),
        effect=Effect.verdict("sampling.sampling_mode", "which rows are asked again", _sampled(lambda c: c.sampling)),
        doc=(
        "JUDGE_SAMPLING (k > 1): `adaptive` asks twice and again, up to k, only rows whose answer could still change "
        "(re-asks regrouped into full blocks); `fixed` asks every row k times."))
    sample_temperature: float | None = knob(None, ge=0, le=2, env="JUDGE_SAMPLE_TEMPERATURE", parse=number(0, maximum=2),
        effect=Effect.verdict("sampling.temperature", "the temperature of the asks",
                              _sampled(lambda c: c.sample_temperature if c.samples > 1 else None)),
        doc=(
        "JUDGE_SAMPLE_TEMPERATURE: `temperature` sent with every model request when JUDGE_SAMPLES > 1 (not to the "
        "codex/claude CLIs); unset = the endpoint's default."))
    panel: tuple[PanelJudge, ...] = knob((), env="JUDGE_PANEL", parse=None,
        effect=Effect.verdict("sampling.panel", "the judges asked (name, model, masked endpoint, weight; never a key)",
                              _sampled(lambda c: [{"name": j.name, "model": j.model,
                                                   "endpoint": mask_url(j.base_url) if j.base_url else None,
                                                   "weight": j.weight} for j in c.panel])),
        doc=(
        "JUDGE_PANEL: a JSON list of judges `{name, model, base_url, api_key_env, weight}` — `api_key_env` is the "
        "NAME of the variable holding that judge's key, never a key; each judge gets its own call path (client, "
        "limiter) and every row its verdict from each; a judge's base_url gets JUDGE_BASE_URL's checks (one that "
        "fails them is ignored with a warning: that judge's samples are lost no_credential); unset = JUDGE_MODEL alone."))
    panel_vote: Literal["majority", "unanimous", "weighted"] = knob("majority", env="JUDGE_PANEL_VOTE", parse=choice("majority", "unanimous", "weighted"),
        effect=Effect.verdict("sampling.panel_vote", "how the judges' answers combine", _sampled(lambda c: c.panel_vote)),
        doc=(
        "JUDGE_PANEL_VOTE: how the judges' answers combine: `majority`, `weighted` (by each judge's weight) or "
        "`unanimous` (the answer in the agent's favour only when every judge gives it)."))
    prices: dict[str, Price] = knob(
        default_factory=dict, env="JUDGE_PRICES", parse=None,
        effect=Effect.score("judge_cost, re-priced from the stored tokens per model"), doc=(
        "JUDGE_PRICES: JSON, model → `{input, cached_input, output}` in US dollars per million tokens; the result "
        "then records `judge_cost_usd` (null when a model called has no price). A price must lie in [0, 10000] "
        "(`core.cost.MAX_PRICE`): an entry outside is ignored with a warning naming the model, which is then unpriced."))

    @property
    def sampled(self) -> bool:
        """True when rows are asked more than once or by a panel (issue 28)."""
        return self.samples > 1 or bool(self.panel)
    # the fleet's shared limiter and its rate limits (issue 29; transport/fleet.py, transport/quota.py)
    limiter_url: SecretStr | None = knob(None, env="JUDGE_LIMITER_URL", parse=_store_url, secret="url", effect=Effect.none(WHEN),
        doc=(
        "JUDGE_LIMITER_URL: `redis://[:password@]host:port/db` or `rediss://` (TLS; `?ssl_ca_certs=/path/ca.pem` for a "
        "private CA; percent-encode `@ : / ? # %` in the password: a URL the redis client would read as another host or "
        "port than the one written is refused with a warning, and the run uses its local limiter): every model "
        "request of every job "
        "on the same limiter key takes its ticket from this shared store (a fleet-wide pace, gate after a 429 and cap "
        "on requests in flight). Unset = the run's local limiter. The store unreachable at start or mid-run (or the "
        "`fleet-redis` extra missing) ⇒ the local limiter, with a warning in the result. The password is redacted "
        "everywhere."))
    fleet_rpm: float | None = knob(None, gt=0, env="JUDGE_FLEET_RPM", parse=number(0, strict=True), effect=Effect.none(WHEN),
        doc=(
        "JUDGE_FLEET_RPM: the key's requests per minute, when the operator knows it: the shared store paces the "
        "fleet at it from the first request (needs JUDGE_LIMITER_URL; else the pace comes from the endpoint's "
        "rate-limit headers or is learned from 429s). Floor: `60 / JUDGE_RETRY_BACKOFF_MAX` (3 at the default 20 s: "
        "the local limiter's slowest pace, one request per backoff cap); a lower value is raised to it with a warning. "
        "No job holds the fleet more than 300 s ahead (`transport.fleet.MAX_HOLD_SEC`)."))
    fleet_tpm: float | None = knob(None, gt=0, env="JUDGE_FLEET_TPM", parse=number(0, strict=True), effect=Effect.none(WHEN),
        doc=(
        "JUDGE_FLEET_TPM: the key's tokens per minute, when known: with JUDGE_LIMITER_URL the fleet's pace is at "
        "most this ÷ the mean tokens per request, never below the floor of JUDGE_FLEET_RPM."))
    limiter_key: str | None = knob(None, env="JUDGE_LIMITER_KEY", parse=text, effect=Effect.none(WHEN),
        doc=(
        "JUDGE_LIMITER_KEY: the shared store's key for this limit (default: a digest of the endpoint, the model and a "
        "digest of the API key — never the key). Jobs with the same key share one limit. A label, not a secret: the "
        "log shows it and nothing redacts it."))

    @property
    def block_budget_sec(self) -> float:
        """Seconds one block may take: 2 × JUDGE_PER_TIMEOUT (derived, no knob; SPEC §11)."""
        return 2.0 * self.per_timeout_sec

    @field_validator("backend")
    @classmethod
    def _registered_backend(cls, value: str) -> str:
        backend_spec(value)  # raises UnknownBackend (a ValueError) naming the known ones
        return value

    def identity(self) -> RunIdentity:
        """Who judges, as recorded in every result document (``judge_model``: `judge_model_label`)."""
        return RunIdentity(metric_id=self.metric_id, requested_version=self.requested_version, version_source=self.version_source,
                           judge_backend=self.backend, judge_model=self.judge_model_label)

    @property
    def judge_model_label(self) -> str:
        """The model(s) the run asks, as ``judge_model`` records them (trial 7 F9): ``JUDGE_MODEL``
        without a panel; a one-judge ``JUDGE_PANEL`` its judge's model; a panel of several
        ``panel:<model>+<model>…`` in panel order (a panel never asks ``JUDGE_MODEL``)."""
        if not self.panel:
            return self.model
        if len(self.panel) == 1:
            return self.panel[0].model
        return "panel:" + "+".join(j.model for j in self.panel)

    @property
    def has_credentials(self) -> bool:
        """True when both an API key and a base URL are configured."""
        return bool(self.api_key and self.api_key.get_secret_value() and self.base_url)


@dataclass
class LoadedConfig:
    """A config plus how it was obtained.

    Attributes:
        config: the effective values.
        sources: field name → ``"env:NAME"`` / ``"default"`` / ``"invalid:NAME → default"``.
        warnings: one line per value that fell back to its default, or was normalized.
        redactor: removes every secret of the same environment (API keys, ``*KEY*``,
            ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*`` values, tokens in endpoint URLs)
            from everything the run writes or sends.
    """

    config: JudgeConfig
    sources: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    redactor: Redactor = field(default_factory=Redactor)
    refused: dict[str, str] = field(default_factory=dict)
    """Credential variables that were set but ignored → why (``JUDGE_BASE_URL`` → ``has no
    scheme (it must begin with http:// or https://)``)."""
    mixed: dict[str, str] = field(default_factory=dict)
    """Half a JUDGE_* pair whose other half is set only in the OPENAI_* family: the unset
    variable → the other family's variable, which is not used in its place
    (``JUDGE_BASE_URL`` → ``OPENAI_BASE_URL``; trial finding 12)."""

    def missing_credentials(self) -> str:
        """Why the run has no judge credentials, each half of the pair named: unset, or set and
        ignored with the reason (``no judge credentials: JUDGE_BASE_URL is set but ignored: it
        has no scheme (…)``). Issue 39: a URL without a scheme said "set JUDGE_API_KEY and
        JUDGE_BASE_URL" while both were set."""
        parts = []
        keys = ENV_NAMES["api_key"]
        refused_key = [f"{env} is set but ignored: it {why}" for env, why in self.refused.items() if env in keys]
        refused_url = [f"{env} is set but ignored: it {why}" for env, why in self.refused.items() if env not in keys]
        if self.config.api_key is None or not self.config.api_key.get_secret_value():
            parts += refused_key or [_unset("JUDGE_API_KEY", "OPENAI_API_KEY", self.mixed)]
            if refused_key:
                parts.append("fix the key's variable: an HTTP header carries printable ASCII only")
        if not self.config.base_url:
            parts += refused_url or [_unset("JUDGE_BASE_URL", "OPENAI_BASE_URL", self.mixed)]
            if refused_url:
                parts.append("write http://host:port/v1, or https:// for a remote endpoint")
        return "no judge credentials: " + "; ".join(parts or ["none configured"])


def _unset(name: str, fallback: str, mixed: dict[str, str]) -> str:
    if name in mixed:
        return f"{name} is not set ({mixed[name]} is, but a pair is never completed from the other family)"
    return f"{name} (or {fallback}) is not set"


# --------------------------------------------------------------------------- parsers


def endpoint_problem(url: str) -> str | None:
    """What keeps `url` from being a judge endpoint, in words that follow the variable's name
    (``has no scheme (it must begin with http:// or https://)``, ``has the scheme 'ftp', not
    http:// or https://``, ``has a mistyped scheme …``, ``has no host …``, ``has an invalid
    port …``, ``ends in the route /chat/completions …``: `ENDPOINT_ROUTES`); None when it is
    one. The openai client sends ``127.0.0.1:8000/v1`` (no scheme)
    nowhere and fails every attempt as a connection error. The words never quote `url` (it
    may carry a password): at most the scheme as typed (`cowork_judge.safety.redact.url_shape`)."""
    import re
    from urllib.parse import urlsplit

    text = url.strip()
    typed = re.match(r"([A-Za-z][A-Za-z0-9+.-]{0,15})://", text)
    if typed is None:
        if re.match(r"(?i)https?:/*", text) or re.match(r"(?i)https?//", text):
            return f"has a mistyped scheme ({url_shape(text)}; write http:// or https://)"
        return "has no scheme (it must begin with http:// or https://)"
    if typed.group(1).lower() not in ("http", "https"):
        return f"has the scheme {typed.group(1)!r}, not http:// or https://"
    try:
        parts = urlsplit(text)
        if not parts.hostname:
            return f"has no host ({url_shape(text)})"
        _ = parts.port  # raises ValueError for a port that is not a number in 0-65535
    except ValueError:
        return f"has an invalid port ({url_shape(text)})"
    return _route_problem(parts.path)


ENDPOINT_ROUTES = ("/chat/completions", "/responses", "/messages")
"""The routes a judge client adds to the base URL: the openai client (and codex's Responses API) and
claude's Messages API (`agentic.claude_cli`). A base URL already ending in one is doubled on every call."""


def endpoint_route(url: str) -> str | None:
    """The route of `ENDPOINT_ROUTES` (e.g. ``/chat/completions``) that the base URL `url` is refused for
    ending in (`endpoint_problem`), else None: a usable URL, or one refused for another reason first (no
    scheme, no host, …). For a refusal that names the route and its fix, never the URL (trial 29 P-2)."""
    from urllib.parse import urlsplit

    problem = endpoint_problem(url)
    try:
        path = urlsplit(url.strip()).path
    except ValueError:
        return None
    return _route_of(path) if problem is not None and problem == _route_problem(path) else None


def _route_of(path: str) -> str | None:
    """The route of `ENDPOINT_ROUTES` a URL's `path` ends in (any case, trailing slashes ignored), else None."""
    trimmed = path.rstrip("/").lower()
    return next((r for r in ENDPOINT_ROUTES if trimmed.endswith(r)), None)


def _route_problem(path: str) -> str | None:
    """Why a base URL whose `path` ends in a route the client adds itself is refused, or None
    (trial 22: ``…/v1/chat/completions`` ended every row ``request_rejected`` with a 404 on
    ``/v1/chat/completions/chat/completions``). The words name the route, never the URL."""
    route = _route_of(path)
    if route is None:
        return None
    return (f"ends in the route {route}, which the judge adds itself (every call would go to …{route}{route}): "
            f"drop {route} from it (e.g. http://127.0.0.1:8000/v1)")


def _floor_fleet_rpm(values: dict[str, Any], sources: dict[str, str], warnings: list[str]) -> None:
    """Raise JUDGE_FLEET_RPM to its floor, ``60 / JUDGE_RETRY_BACKOFF_MAX`` requests per minute:
    the local limiter's slowest pace (`transport.limiter`: ``rate_min = 1 / backoff_max``).
    A lower value would hold every job of the fleet for minutes per request (0.0001 wrote a
    pace 7 days ahead into the shared store)."""
    rpm = values.get("fleet_rpm")
    if rpm is None:
        return
    backoff = values.get("retry.backoff_max_sec", default("retry.backoff_max_sec"))
    floor = 60.0 / backoff
    if rpm < floor:
        warnings.append(f"JUDGE_FLEET_RPM={rpm:g} is below the floor {floor:g} (one request per JUDGE_RETRY_BACKOFF_MAX="
                        f"{backoff:g} s, the slowest pace any limiter of the run sets; a lower pace would hold every job "
                        f"of the fleet); using {floor:g}")
        values["fleet_rpm"] = floor
        sources["fleet_rpm"] = "raised:JUDGE_FLEET_RPM"


FLEET_ONLY = (("fleet_rpm", "JUDGE_FLEET_RPM"), ("fleet_tpm", "JUDGE_FLEET_TPM"), ("limiter_key", "JUDGE_LIMITER_KEY"))
"""Settings only the shared store reads (`transport.fleet`): without JUDGE_LIMITER_URL they do nothing."""


def _fleet_without_store(values: dict[str, Any], warnings: list[str], *, refused: bool = False) -> None:
    """Say so when a store-only setting (`FLEET_ONLY`) is set without ``JUDGE_LIMITER_URL``
    (or with one that was `refused`): the run then uses its local limiter, which reads none
    of them (an operator who set JUDGE_FLEET_RPM=30 alone saw no sign that it was ignored)."""
    if values.get("limiter_url"):
        return
    given = [env for name, env in FLEET_ONLY if values.get(name) not in (None, "")]
    if given:
        without = "JUDGE_LIMITER_URL, which was refused (see above)" if refused else "JUDGE_LIMITER_URL"
        warnings.append(f"{', '.join(given)} {'has' if len(given) == 1 else 'have'} no effect without {without} "
                        "(the fleet's shared store): this run paces itself with its local limiter")


CREDENTIAL_FAMILIES = (("JUDGE_API_KEY", "JUDGE_BASE_URL"), ("OPENAI_API_KEY", "OPENAI_BASE_URL"))
"""The two credential pairs, (key, URL) each; the judge takes its pair from ONE of them."""
LEGACY_ENV_NAMES = ("JUDGE_NO_AGENT_TOOLS", "JUDGE_CODEX_USE_CHAT_SHIM", "JUDGE_CODEX_WIRE_API", "JUDGE_SAVE_TRAJECTORY")
"""Variables of the 1.x judge that the legacy entry reads to say what becomes of them (no knob)."""

def settings(model: type[JudgeConfig] | None = None) -> dict[str, tuple[FieldInfo, Knob]]:
    """Every setting of `model` (default `JudgeConfig`; a subclass adds its own), in declaration
    order: name (dotted for a nested policy's field, ``scoring.reward_mode``) → (its field, its
    `cowork_judge.core.knobs.Knob`). The one source of the tables below: a setting is declared
    once, by `knob(...)` in its field."""
    return _settings(model or JudgeConfig)


@functools.cache
def _settings(model: type[JudgeConfig]) -> dict[str, tuple[FieldInfo, Knob]]:
    return knob_table(model)


def env_names(model: type[JudgeConfig] | None = None) -> dict[str, tuple[str, ...]]:
    """Setting → its environment variable names, first one wins (`settings` order)."""
    return {name: k.env for name, (_, k) in settings(model).items()}


def caps(model: type[JudgeConfig] | None = None) -> dict[str, tuple[float, str]]:
    """Setting → (largest accepted value, why), for the settings that declare a cap."""
    return {name: k.cap for name, (_, k) in settings(model).items() if k.cap is not None}


def secret_settings(model: type[JudgeConfig] | None = None) -> dict[str, str]:
    """Setting → how its secret value is masked and redacted (``key`` or ``url``, `Knob.secret`)."""
    return {name: k.secret for name, (_, k) in settings(model).items() if k.secret is not None}


ENV_NAMES: dict[str, tuple[str, ...]] = env_names()
"""Field (dotted for a nested policy's) → environment variable names, first one wins."""
CAPS: dict[str, tuple[float, str]] = caps()
"""Knob (a field name; a dotted path into a nested policy) → (largest accepted value, why). A larger value is capped with a
warning: an accepted absurd value (JUDGE_CONCURRENCY=100000) made one run spend its deadline scheduling and lose its
document."""
_KNOBS: dict[str, tuple[tuple[str, ...], Callable[[str], Any]]] = {
    name: (k.env, k.parse) for name, (_, k) in settings().items() if k.parse is not None}
"""Setting → (env names, parser) of the settings read by `load_config`'s loop; the credential pair and the JSON
settings (`Knob.parse` None) have readers of their own."""
_JSON_KNOBS: dict[str, str] = {"panel": ENV_NAMES["panel"][0], "prices": ENV_NAMES["prices"][0]}
"""JSON knobs read by `_read_json_knobs` (never quoted in a warning: a panel's text may hold a key)."""
NESTED: dict[str, Any] = nested_models(JudgeConfig)
"""The policies nested in the config: field → type (the home of their knobs' defaults)."""



def default(name: str, model: type[JudgeConfig] | None = None) -> Any:
    """The default of knob `name` (a field of `model`, default `JudgeConfig`, or ``policy.field`` of a nested policy)."""
    head, _, rest = name.partition(".")
    if rest:
        return getattr(NESTED[head](), rest)
    return (model or JudgeConfig).model_fields[name].get_default(call_default_factory=True)


def _nest(values: dict[str, Any]) -> dict[str, Any]:
    """Flat knob values (dotted names for nested policies) → `JudgeConfig` keyword arguments."""
    out = {k: v for k, v in values.items() if "." not in k}
    for head, kind in NESTED.items():
        part = {k.partition(".")[2]: v for k, v in values.items() if k.partition(".")[0] == head and "." in k}
        if part:
            out[head] = kind(**part)
    return out


def load_config(environ: Mapping[str, str] | None = None, *, model: type[JudgeConfig] | None = None) -> LoadedConfig:
    """Read every knob from `environ` (default: ``os.environ``) into `model` (default `JudgeConfig`;
    a subclass's own settings are read, capped, masked and redacted as `settings` declares them).

    Empty strings count as unset (Harbor templates expand ``${VAR:-}`` to ""), except for
    `JUDGE_WORKFLOW_DEADLINE_SHARE` whose empty value means "adaptive" anyway.

    Returns:
        `LoadedConfig`; never raises for bad values (they fall back with a warning).
    """
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    warnings: list[str] = []
    refused: dict[str, str] = {}
    kind = model or JudgeConfig
    for name, (_, knob_) in settings(kind).items():
        if knob_.parse is None:
            continue  # the credential pair and the JSON settings: read below
        parser = knob_.parse
        sources[name] = "default"
        for env_name in knob_.env:
            raw = env.get(env_name)
            if raw is None or not raw.strip():
                continue
            try:
                values[name] = parser(raw)
                sources[name] = f"env:{env_name}"
            except UnparsableStoreUrl as exc:  # a store URL may hold a password: never quoted
                warnings.append(f"{env_name} ({url_shape(raw)}) {exc.detail}. This run paces itself with its local "
                                "limiter (not shared with the fleet)")
                sources[name] = f"invalid:{env_name} → default"
            except ValueError as exc:
                warnings.append(f"{env_name}={raw!r} {exc}; using the default {_shown_default(default(name, kind))}")
                sources[name] = f"invalid:{env_name} → default"
            break
    mixed = _credential_family(env, warnings)
    _read_credentials(env, values, sources, warnings, refused)
    _apply_bounds(values, sources, warnings, kind)
    spec = backend_spec(values.get("backend", DEFAULT_BACKEND))
    if not spec.available:
        usable = ", ".join(name for name, s in BACKENDS.items() if s.available)
        warnings.append(f"JUDGE_BACKEND={spec.name!r} is not available in this version: agentic rows will be "
                        f"unjudged (backend_missing); use one of: {usable}")
    secrets = _read_json_knobs(env, values, sources, warnings)
    config = kind(**_nest(values))
    own = {n for names in env_names(kind).values() for n in names}  # a subclass's names are read too
    warnings += unknown_name_warnings(env, also_read=frozenset(own | {j.api_key_env for j in config.panel if j.api_key_env}))
    secrets += [j.api_key.get_secret_value() for j in config.panel if j.api_key is not None]
    return LoadedConfig(config=config, sources=sources, warnings=warnings, redactor=_redactor(env, config, secrets),
                        refused=refused, mixed=mixed)


def _redactor(env: Mapping[str, str], config: JudgeConfig, found: list[str]) -> Redactor:
    """The run's redactor: the secrets of `env` (`Redactor.from_environ`), the value of every ``key`` secret
    setting as a credential, the userinfo and secret query values of the variables of every ``url`` secret
    setting (`secret_settings`), and `found` (secrets met while reading: a panel's keys)."""
    secret = secret_settings(type(config))
    keys = [_plain(setting_value(config, name)) or "" for name, how in secret.items() if how == "key"]
    urls = [env_name for name, how in secret.items() if how == "url" for env_name in settings(type(config))[name][1].env]
    return Redactor.from_environ(env, extra=[*keys, *found], url_names=urls)


def _plain(value: Any) -> Any:
    """A `SecretStr`'s text; any other value as it is."""
    return value.get_secret_value() if isinstance(value, SecretStr) else value


def _read_credentials(env: Mapping[str, str], values: dict[str, Any], sources: dict[str, str], warnings: list[str],
                      refused: dict[str, str]) -> None:
    """Read the credential pair (``api_key``, ``base_url``) into `values` (and `sources`):
    from one family (`_credential_family`), an endpoint that is no usable URL refused
    (`refused`: variable → problem), a key too short to redact warned about; without a key,
    the gateway's placeholder when ``JUDGE_GATEWAY_AUTH`` says the gateway supplies it."""
    for name in ("api_key", "base_url"):
        sources[name] = "unset"
        for env_name in ENV_NAMES[name]:
            if env_name.startswith("OPENAI_") and any(env.get(n, "").strip() for n in CREDENTIAL_FAMILIES[0]):
                break  # a pair comes from one family: JUDGE_* set, so OPENAI_* never completes it
            raw = env.get(env_name, "").strip()
            if raw:
                problem = endpoint_problem(raw) if name == "base_url" else key_problem(raw)
                if problem:  # never another variable: JUDGE_API_KEY must not go to OPENAI_BASE_URL's endpoint
                    fix = ("write http://host:port/v1 (https:// for a remote endpoint: no scheme is guessed, "
                           "http:// would send the key unencrypted)") if name == "base_url" else \
                        "fix the variable (an HTTP header carries printable ASCII only; the key is not retried)"
                    warnings.append(f"{env_name} {problem}: it is ignored, so rows that need a model end no_credential; {fix}")
                    sources[name] = f"invalid:{env_name} → unset"
                    refused[env_name] = problem
                    break
                values[name] = SecretStr(raw) if name == "api_key" else raw.rstrip("/")
                sources[name] = f"env:{env_name}"
                if name == "api_key" and len(raw) < MIN_CREDENTIAL_LEN:
                    warnings.append(f"{env_name} is shorter than {MIN_CREDENTIAL_LEN} characters: it is used but cannot be "
                                    "redacted from logs and documents")
                elif name == "api_key" and len(raw) < MIN_SECRET_LEN:
                    warnings.append(f"{env_name} is shorter than {MIN_SECRET_LEN} characters: it is redacted only where it "
                                    "stands as a whole word")
                break
    gateway = values.get("gateway_auth", "off")
    if gateway != "off" and "api_key" not in values:  # the gateway supplies the key (module GATEWAY_* constants)
        values["api_key"] = SecretStr(GATEWAY_NO_AUTH_KEY if gateway == "none" else GATEWAY_PLACEHOLDER_KEY)
        sources["api_key"] = f"gateway:JUDGE_GATEWAY_AUTH={gateway}"


def _apply_bounds(values: dict[str, Any], sources: dict[str, str], warnings: list[str], kind: type[JudgeConfig]) -> None:
    """Bring the knobs read into their bounds, each change a warning: the `CAPS`, the fleet
    rate's floor, a fleet limit without a store, start jitters over ``MAX_JITTER_SHARE`` of the
    deadline."""
    for name, (_, knob_) in settings(kind).items():
        if knob_.cap is None:
            continue
        cap, why = knob_.cap
        if name in values and values[name] > cap:
            env_name = knob_.env[0]
            warnings.append(f"{env_name}={values[name]:g} is above the cap {cap:g} ({why}); using {cap:g}")
            values[name] = type(values[name])(cap)
            sources[name] = f"capped:{env_name}"
    _floor_fleet_rpm(values, sources, warnings)
    _fleet_without_store(values, warnings, refused=sources.get("limiter_url", "").startswith("invalid:"))
    deadline = values.get("deadline_sec", default("deadline_sec"))
    for name, env_name in (("start_jitter_sec", "JUDGE_START_JITTER"), ("workflow_start_jitter_sec", "JUDGE_WORKFLOW_START_JITTER")):
        jitter = values.get(name, default(name))
        if jitter > deadline * MAX_JITTER_SHARE:
            values[name] = deadline * MAX_JITTER_SHARE
            warnings.append(f"{env_name}={jitter:g} s is more than {MAX_JITTER_SHARE:.0%} of JUDGE_DEADLINE={deadline:g} s; "
                            f"using {values[name]:g} s so the spread cannot eat the run")


def _credential_family(env: Mapping[str, str], warnings: list[str]) -> dict[str, str]:
    """The credential pair comes from one family (`CREDENTIAL_FAMILIES`): JUDGE_* when either of
    its two is set, else OPENAI_*. Half a JUDGE_* pair whose other half is set as OPENAI_* is
    warned about, naming both (trial finding 12: JUDGE_API_KEY was sent to OPENAI_BASE_URL).

    Returns:
        The unset JUDGE_* variable → the OPENAI_* variable not used in its place.
    """
    judge, openai = CREDENTIAL_FAMILIES
    present = [bool(env.get(n, "").strip()) for n in judge]
    if present.count(True) != 1:
        return {}
    have, lack = (judge[0], judge[1]) if present[0] else (judge[1], judge[0])
    other = openai[judge.index(lack)]
    if not env.get(other, "").strip():
        return {}
    warnings.append(f"{have} is set with {other}, but {lack} is not: a credential pair comes from one family (JUDGE_* "
                    f"or OPENAI_*), so {other} is not used ({have} never goes with the other family's "
                    f"{'endpoint' if lack.endswith('URL') else 'key'}); set {lack}, or unset {have} to use the OPENAI_* pair")
    return {lack: other}


def known_env_names() -> frozenset[str]:
    """Every JUDGE_* (and OPENAI_* credential) variable the judge reads: the knobs of `ENV_NAMES`
    and the legacy names `commands.legacy_entry` answers (`LEGACY_ENV_NAMES`)."""
    return frozenset({n for names in ENV_NAMES.values() for n in names} | set(LEGACY_ENV_NAMES))


def suggest_env_name(name: str) -> str | None:
    """The known variable `name` most likely misspells (``JUDGE_SAMPLS`` → ``JUDGE_SAMPLES``), or None."""
    import difflib

    match = difflib.get_close_matches(name.upper(), sorted(known_env_names()), n=1, cutoff=0.8)
    return match[0] if match else None


def unknown_env_problem(name: str) -> str | None:
    """A phrase to follow `name` when it is a ``JUDGE_*`` name the judge does not read ("is not
    a setting the judge reads (did you mean JUDGE_SAMPLES?)"), or None (a known name, or not a
    ``JUDGE_*`` name: other variables are not the judge's to judge)."""
    if not name.upper().startswith("JUDGE_") or name in known_env_names():
        return None
    match = suggest_env_name(name)
    return "is not a setting the judge reads" + (f" (did you mean {match}?)" if match else "")


def unknown_name_warnings(env: Mapping[str, str], *, also_read: frozenset[str] = frozenset()) -> list[str]:
    """One warning per ``JUDGE_*`` variable of `env` the judge does not read (a typo is never
    read: ``JUDGE_SAMPLS=3`` would judge once), each with a did-you-mean when one is close.

    Args:
        also_read: names read all the same (the ``api_key_env`` of JUDGE_PANEL's judges).
    """
    return [f"{name} {problem}: it is ignored" for name in sorted(env)
            if name not in also_read and (problem := unknown_env_problem(name))]


def _read_json_knobs(env: Mapping[str, str], values: dict[str, Any], sources: dict[str, str], warnings: list[str]) -> list[str]:
    """JUDGE_PANEL (with each judge's key read from its variable) and JUDGE_PRICES into
    `values`; a bad value falls back to the default with a warning that never quotes it.
    Returns secret values met on the way (refused literal keys, panel keys) for redaction."""
    secrets: list[str] = []
    for name, env_name in _JSON_KNOBS.items():
        raw = env.get(env_name)
        sources[name] = "default"
        if raw is None or not raw.strip():
            continue
        try:
            if name == "panel":
                panel, notes, found = read_panel(raw)
                secrets += found
                warnings += notes
                key = values["api_key"].get_secret_value() if values.get("api_key") else None
                values[name], notes, refused_keys = resolve_keys(panel, env, run_key=key, run_url=values.get("base_url"))
                warnings += notes
                secrets += refused_keys
                values[name] = _refuse_panel_urls(values[name], warnings, secrets)
            else:
                values[name], notes = read_prices(raw)
                warnings += notes
            sources[name] = f"env:{env_name}"
        except ValueError as exc:
            warnings.append(f"{env_name} {exc}; using the default (none)")
            sources[name] = f"invalid:{env_name} → default"
    return secrets


def _refuse_panel_urls(panel: tuple[PanelJudge, ...], warnings: list[str], secrets: list[str]) -> tuple[PanelJudge, ...]:
    """`panel` with each judge whose ``base_url`` fails the check JUDGE_BASE_URL gets (`endpoint_problem`: no
    scheme, no host, a route the client adds itself…) left without endpoint and key (`PanelJudge.url_refused`):
    ignored with a warning naming the judge, as JUDGE_BASE_URL is, so its samples are lost ``no_credential`` with
    no request sent (never the run's endpoint instead). The key dropped goes to `secrets` (still redacted)."""
    out = []
    for judge in panel:
        problem = endpoint_problem(judge.base_url) if judge.base_url else None
        if problem is None:
            out.append(judge)
            continue
        warnings.append(f"JUDGE_PANEL judge {judge.name!r}: base_url {problem}: it is ignored, so this judge's samples "
                        "are lost (no_credential), with no request sent (it does not fall back to JUDGE_BASE_URL); write "
                        "http://host:port/v1 (https:// for a remote endpoint)")
        if judge.api_key is not None:
            secrets.append(judge.api_key.get_secret_value())
        out.append(judge.model_copy(update={"api_key": None, "url_refused": f"base_url {problem}"}))
    return tuple(out)


def export_credentials(config: JudgeConfig, environ: dict[str, str] | Any = None) -> None:
    """Write the resolved credential pair under both names (JUDGE_* and OPENAI_*).

    CLI backends read whichever their config names (SPEC §11).
    """
    env = os.environ if environ is None else environ
    if config.api_key is not None:
        key = config.api_key.get_secret_value()
        env["JUDGE_API_KEY"] = key
        env["OPENAI_API_KEY"] = key
    if config.base_url:
        env["JUDGE_BASE_URL"] = config.base_url
        env["OPENAI_BASE_URL"] = config.base_url


def masked(config: JudgeConfig) -> dict[str, Any]:
    """The effective values with secrets masked, as each secret setting declares (`Knob.secret`):
    a ``key`` (the API key) as ``****`` + its last 4 characters, a ``url`` (the base URL, the
    store's URL with its password) through `cowork_judge.safety.redact.mask_url` (userinfo and
    secret-looking query values); a panel's judges say only whether a key was found. One entry
    per knob: a nested policy's fields under their dotted names (``scoring.reward_mode``), as
    `ENV_NAMES` and `LoadedConfig.sources` name them."""
    out: dict[str, Any] = {}
    for name, value in config.model_dump().items():
        if name in NESTED:
            out.update({f"{name}.{k}": v for k, v in value.items()})
        else:
            out[name] = value
    for name, how in secret_settings(type(config)).items():
        raw = _plain(setting_value(config, name))
        if how == "key":
            out[name] = ("****" + raw[-4:]) if raw and len(raw) > 8 else ("****" if raw else None)
        elif raw:  # a token may ride in the URL (user:pass@, ?token=), a password in the store's
            out[name] = mask_url(raw)
    for judge in out.get("panel") or ():  # `api_key` is excluded from dumps; say whether one was found
        judge["api_key"] = "****" if any(j.name == judge["name"] and j.api_key for j in config.panel) else None
    return out
