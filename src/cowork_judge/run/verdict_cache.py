"""The verdict cache: a re-judge of the same deliverable by the same judge asks only rows it has not seen.

A fleet re-judges recorded rollouts after a rubric edit (``harbor jobs regrade``, ``cowork-judge
batch``). Without a cache every row is asked again; with it, only the rows whose key changed:
a one-row edit costs one row's calls. A verdict is stored under a key (`verdict_key`) of

1. the **deliverable**: every delivered file's relative path and SHA-256, and the final chat
   message (`deliverable_digest`);
2. the **row as the judge sees it** (`Criterion.as_asked` — description, polarity, levels… —
   plus the routing fields a workflow reads), with ``weight`` and ``depends_on`` left out:
   they shape the score, not the verdict (the sign of the weight is in ``polarity``);
3. the **judge**: backend, model name, the **endpoint** (`endpoint_identity` of the base URL:
   scheme, host and port, path — never a user, password or secret query value; trial 15 P-5: an
   oracle simulator and a real model behind the same ``JUDGE_MODEL`` are different judges; the
   built-in simulator of ``try``/``demo``, on a new port each run, is one fixed name, trial 33 P-2; a
   panel's judges' endpoints come with its sampling settings), block size, turns, the evidence
   budget on/off, the judge instruction and task prompt, and the row's workflow settings and
   asset files;
4. the **judge version** (``cowork_judge.__version__`` and the engine ABI).

Only judged model verdicts (agentic and workflow rows) are stored; code rows are cheap and
re-run. A cached verdict goes through the gates of this run again. Reads never fail a run:
an unreadable or foreign entry is a miss. Entries are JSON files written atomically
(``<dir>/<key[:2]>/<key>.json``), so concurrent runs may share one folder. Each entry carries
the SHA-256 of its verdict (``digest``, `core.integrity.canonical`, as a result document is
sealed; trial 10 F4): an entry whose verdict no longer matches it (edited by hand or by a
neighbour on a shared volume), or that cannot be read, is not reused: the row is asked again
and the run's warnings name the entry (`VerdictCache.rejected`).

``JUDGE_VERDICT_CACHE=<dir>`` turns it on for ``cowork-judge run`` (off by default: a Harbor
trial has a fresh container, and a regrade only profits where the folder survives, e.g. a
mounted volume); ``cowork-judge batch`` turns it on by default (``<out>/verdict-cache``).
The settings fingerprint of batch results (``fleet``) overlaps with component 3; the two are
built separately on purpose (a fingerprint says "same settings", a key says "same question").
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cowork_judge.core.integrity import canonical
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.simulated import SIM_ENDPOINT
from cowork_judge.core.verdicts import Verdict

if TYPE_CHECKING:
    from cowork_judge.run.context import RunContext

CACHE_SCHEMA = "cowork-judge/verdict-cache@3"
"""@3 (trial 15 P-5): the key holds the endpoint, so @2 entries (keyed without it) are never found: each row is
asked once again. @2 (trial 10 F4): entries carry a ``digest`` of their verdict. Entries of another schema are a miss."""
TRAJECTORY_WORKFLOWS = frozenset({"trajectory_judge"})
"""Workflows that judge the agent's trajectory: their keys include its digest (`deliverable_digest`)."""
CACHED_METHODS = frozenset({"agentic", "workflow"})
"""Segments whose verdicts are stored (model calls); code verdicts are re-run."""
ROUTING_FIELDS = ("judge_method", "workflow_name", "workflow_group", "na_policy", "page_mean_p", "decided_by")
"""Criterion fields a workflow reads besides `Criterion.for_judge`."""
MAX_ASSET_BYTES = 64 * 1024 * 1024
"""Asset files hashed per workflow at most (beyond it the folder's listing and sizes stand in)."""


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _canon(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8")


def file_digest(path: Path, *, follow: bool = True) -> str:
    """SHA-256 (hex) of a file's bytes, read in 1 MiB blocks; ``"unreadable"`` when it cannot be read.

    With ``follow=False`` a symbolic link is not followed (``"unreadable"``), as the agent-log reader
    (`cowork_judge.run.answer`) never reads ``trajectory.json`` through one."""
    h = hashlib.sha256()
    try:
        flags = os.O_RDONLY | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(os.open(path, flags), "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return "unreadable"
    return h.hexdigest()


def deliverable_digest(files: list[tuple[str, Path]], final_message: str | None, *, trajectory: str | None = None) -> str:
    """Digest of what the agent handed in: ``(relative path, file)`` pairs and the final message; with
    `trajectory` (the `file_digest` of its ``trajectory.json``, for rows judged on what the agent did)
    that too, so a verdict on one trajectory is never reused for another."""
    parts = sorted((rel, file_digest(path)) for rel, path in files)
    doc: dict[str, Any] = {"files": parts, "final_message": final_message}
    if trajectory is not None:
        doc["trajectory"] = trajectory
    return _sha(_canon(doc))


def folder_digest(folder: Path | None) -> str:
    """Digest of every regular file under `folder` (relative paths and contents); ``"none"`` when absent."""
    if folder is None or not folder.is_dir():
        return "none"
    entries, budget = [], MAX_ASSET_BYTES
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        size = path.stat().st_size
        budget -= size
        entries.append((path.relative_to(folder).as_posix(), size, file_digest(path) if budget >= 0 else "large"))
    return _sha(_canon(entries))


def row_fields(row: Criterion) -> dict[str, Any]:
    """The row as the key sees it: what the judge reads, minus score-only fields."""
    seen = row.as_asked()
    routing = row.routing()
    seen.update({k: routing[k] for k in ROUTING_FIELDS})
    if row.extra:
        seen["extra"] = row.extra
    return seen


def verdict_key(*, deliverable: str, row: Mapping[str, Any], judge: Mapping[str, Any], version: str) -> str:
    """The cache key (SHA-256 hex) of one row's verdict.

    Args:
        deliverable: `deliverable_digest` of the rollout.
        row: `row_fields` of the criterion.
        judge: the judge's settings that shape a verdict (`judge_settings`).
        version: the judge version and ABI (``"0.2.0/abi2"``).
    """
    return _sha(_canon({"schema": CACHE_SCHEMA, "deliverable": deliverable, "row": row, "judge": judge, "version": version}))


def endpoint_identity(url: str | None) -> str | None:
    """The endpoint part of the key: `url` normalised (scheme and host lower-cased, a default port
    dropped, trailing slashes of the path dropped), with no user name or password and the value of
    a secret-looking query parameter masked (`safety.redact.mask_url`), so a key never holds a
    secret. None for no URL (a CLI backend's own endpoint); a text that does not parse as a URL
    is kept stripped and masked."""
    from urllib.parse import urlsplit, urlunsplit

    from cowork_judge.safety.redact import mask_url

    if not url or not url.strip():
        return None
    try:
        parts = urlsplit(url.strip())
        host, port, scheme = (parts.hostname or "").lower(), parts.port, parts.scheme.lower()
    except ValueError:
        return mask_url(url.strip())
    if not host:
        return mask_url(url.strip())
    host = f"[{host}]" if ":" in host else host
    netloc = host if port is None or (scheme, port) in (("http", 80), ("https", 443)) else f"{host}:{port}"
    return mask_url(urlunsplit((scheme, netloc, parts.path.rstrip("/"), parts.query, "")))


def judge_settings(config: Any, *, instruction: str, task_prompt: str, workflow: Mapping[str, Any] | None,
                   assets: str, builtin_simulator: bool = False) -> dict[str, Any]:
    """Component 3 of the key from a `JudgeConfig` and the run's inputs (texts hashed).

    The model name, backend, endpoint (`endpoint_identity`; `core.simulated.SIM_ENDPOINT` when `builtin_simulator`:
    the built-in simulator of ``try``/``demo`` is on a new port each run, trial 33 P-2), block size and turn limit
    shape every verdict; a run that samples
    (JUDGE_SAMPLES > 1, JUDGE_PANEL) adds its sampling settings (`run.fingerprint.sampling_ingredients`:
    samples, mode, temperature, the panel's judges, the vote), so a sampled verdict never stands
    for a single ask's or another panel's. Reasoning effort is the endpoint's."""
    endpoint = SIM_ENDPOINT if builtin_simulator else endpoint_identity(config.base_url)
    settings = {"backend": config.backend, "model": config.model, "endpoint": endpoint,
                "batch": config.batch,
                "max_turns": config.max_turns, "evidence": config.evidence_sec > 0, "instruction": _sha(instruction.encode()),
                "task_prompt": _sha(task_prompt.encode()), "workflow_config": dict(workflow or {}), "assets": assets}
    if getattr(config, "sampled", False):  # JUDGE_SAMPLES > 1 / JUDGE_PANEL: a sampled verdict answers another question
        from cowork_judge.run.fingerprint import sampling_ingredients

        settings["sampling"] = sampling_ingredients(config)
    return settings


class VerdictCache:
    """A folder of cached verdicts. `get` / `put`; `hits` and `stored` count this run's use;
    `rejected` holds one warning sentence per entry found but not reused (unreadable, or its
    verdict does not match its digest)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.hits: list[str] = []
        self.stored = 0
        self.rejected: list[str] = []

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def unusable(self) -> str | None:
        """Why this folder cannot hold the run's verdicts, or None when it can (trial 7 F3).

        Creates the folder (as the first `put` would) and writes and removes one empty probe
        file in it. Returns a sentence naming ``JUDGE_VERDICT_CACHE`` and the folder: one that
        cannot be created (no verdict reused or stored) or one that cannot be written (cached
        verdicts reused, none stored). Never raises.
        """
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return (f"JUDGE_VERDICT_CACHE {self.root}: the folder cannot be created ({exc.strerror or exc}): no verdict "
                    "is reused or stored, every model row is asked again on each re-judge (is the cache volume "
                    "mounted? give a writable folder, or 0 for no cache)")
        try:
            fd, probe = tempfile.mkstemp(prefix=".probe-", dir=self.root)
            os.close(fd)
            os.unlink(probe)
        except OSError as exc:
            return (f"JUDGE_VERDICT_CACHE {self.root}: the folder cannot be written ({exc.strerror or exc}): cached "
                    "verdicts are reused but none is stored, so rows judged now are asked again on each re-judge "
                    "(is the cache volume mounted read-only? give a writable folder, or 0 for no cache)")
        return None

    def get(self, key: str, row_id: str) -> Verdict | None:
        """The stored verdict for `key` (renamed to `row_id`, marked ``cached``), or None.

        None also for an entry that exists but cannot be read, names another key, or whose
        verdict does not match its ``digest``: those add a sentence to `rejected` (the row is
        asked again and its fresh verdict replaces the entry). An entry of another cache
        schema (an older judge's) is a silent miss."""
        path = self._path(key)
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            self._reject(path, row_id, f"cannot be read ({type(exc).__name__})")
            return None
        if not isinstance(doc, dict) or doc.get("schema") != CACHE_SCHEMA:
            return None
        try:
            sealed = doc.get("key") == key and doc.get("digest") == _sha(canonical(doc["verdict"]))
            verdict = Verdict.model_validate(doc["verdict"]) if sealed else None
        except (ValueError, KeyError, TypeError):
            verdict = None
        if verdict is None:
            self._reject(path, row_id, "does not match its digest (edited after it was stored?)")
            return None
        if not verdict.judged:
            return None
        self.hits.append(row_id)
        return verdict.model_copy(update={"id": row_id, "gate": None, "cached": True, "attempts": 0, "seconds": 0.0})

    def _reject(self, path: Path, row_id: str, why: str) -> None:
        """Record why the entry at `path` (row `row_id`) was found but not reused (`rejected`)."""
        self.rejected.append(f"verdict cache entry {path} (row {row_id}) {why}: not reused, the row was asked again")

    def put(self, key: str, verdict: Verdict) -> bool:
        """Store a judged model verdict (others are ignored); False when it could not be written."""
        if not verdict.judged or verdict.cached or verdict.gate == "closed" or verdict.method not in CACHED_METHODS:
            return False  # a gate-closed verdict says nothing about the row itself
        path = self._path(key)
        dumped = verdict.model_dump(mode="json")
        try:
            doc = {"schema": CACHE_SCHEMA, "key": key, "digest": _sha(canonical(dumped)), "verdict": dumped}
        except ValueError:  # a non-finite number: not storable canonically
            return False
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".v-", dir=path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(doc, fh, ensure_ascii=False)
            os.replace(tmp, path)
        except OSError:
            return False
        self.stored += 1
        return True



class RunCache:
    """One run's use of the verdict cache: each cached row's key, built once from the run's
    context when the run starts routing, its lookups (`split`) and stores (`keep`).

    Args:
        ctx: the run's context (`run.context.RunContext`: the cache folder
            ``JUDGE_VERDICT_CACHE``, the delivery, the judge's settings, the workflow assets).
        criteria: the rubric's rows; only agentic and workflow rows get a key (`CACHED_METHODS`).
    """

    def __init__(self, ctx: RunContext, criteria: Sequence[Criterion]) -> None:
        from cowork_judge import ABI, __version__

        self.store = VerdictCache(Path(ctx.config.verdict_cache_dir or "."))
        files = [(f.rel, Path(f.path)) for f in ctx.delivery.files]
        deliverable = deliverable_digest(files, ctx.delivery.final_message)
        with_trajectory = deliverable  # rows judged on the trajectory: its digest too (read only when there are some)
        if any(r.judge_method == "workflow" and r.workflow.name in TRAJECTORY_WORKFLOWS for r in criteria):
            with_trajectory = deliverable_digest(files, ctx.delivery.final_message,
                                                 trajectory=file_digest(ctx.paths.agent_dir / "trajectory.json", follow=False))
        settings: dict[str | None, dict[str, Any]] = {}
        self.keys: dict[str, str] = {}
        for row in criteria:
            if row.judge_method not in CACHED_METHODS:
                continue
            name = row.workflow.name if row.judge_method == "workflow" else None
            if name not in settings:
                assets = folder_digest(ctx.paths.workflow_assets_dir(name)) if name else "none"
                settings[name] = judge_settings(ctx.config, instruction=ctx.instruction, task_prompt=ctx.task_prompt,
                                                workflow=ctx.workflow_config.get(name) if name else None, assets=assets,
                                                builtin_simulator=ctx.builtin_simulator)
            digest = with_trajectory if name in TRAJECTORY_WORKFLOWS else deliverable
            self.keys[row.id] = verdict_key(deliverable=digest, row=row_fields(row), judge=settings[name],
                                            version=f"{__version__}/abi{ABI}")

    @classmethod
    def of(cls, ctx: RunContext, criteria: Sequence[Criterion]) -> RunCache | None:
        """The run's cache for `criteria` (their keys built now from `ctx`), or None when
        ``JUDGE_VERDICT_CACHE`` is off (``ctx.config.verdict_cache_dir`` unset)."""
        return cls(ctx, criteria) if ctx.config.verdict_cache_dir else None

    def split(self, rows: Sequence[Criterion]) -> tuple[list[Criterion], dict[str, Verdict]]:
        """(rows to judge, row id → cached verdict), rows in the order given."""
        todo, hits = [], {}
        for row in rows:
            hit = self.store.get(self.keys[row.id], row.id) if row.id in self.keys else None
            if hit is None:
                todo.append(row)
            else:
                hits[row.id] = hit
        return todo, hits

    def keep(self, rows: Sequence[Criterion], decided: Mapping[str, Verdict]) -> None:
        """Store the verdicts of `rows` that `decided` holds (only judged ones are stored: `VerdictCache.put`)."""
        for row in rows:
            if row.id in self.keys and row.id in decided:
                self.store.put(self.keys[row.id], decided[row.id])


__all__ = ["CACHE_SCHEMA", "RunCache", "VerdictCache", "deliverable_digest", "endpoint_identity", "file_digest", "folder_digest", "judge_settings", "row_fields",
           "verdict_key"]
