"""The verdict fingerprint: one digest of everything that decides a run's verdicts (SPEC §19).

Two verdicts may stand for each other only when they were reached by the same judge on the
same question. "The same judge" is the engine version and ABI, the backend, the model, the
endpoint, and the settings that shape what the model is asked and how often (rows per
block, turns, resplit, chat fallback, lenient delivery, evidence on/off, auxiliary files);
"the same question" is the rubric, the task prompt and the judge instruction, by SHA-256.
Which settings are in it is not a list kept here: every setting of kind ``verdict`` in
`config.effects.EFFECTS` is, at its `Effect.key` (a test makes every setting declare its kind).
Deadlines, concurrency, retries' pacing and the scoring policy are left out on purpose: they
decide whether a verdict is reached or how it is scored (a resume re-scores the stored
verdicts for free, `fleet.rescore.restate`), not which verdict it is.

`verdict_ingredients` collects them from a configuration and a tests folder, `digest` turns
any ingredients into the hex digest (canonical JSON, SHA-256), and `verdict_fingerprint`
returns both as the result document stores them (``details.fingerprint``). Every result
carries one; ``batch``/``calibrate`` resume compares it with the fingerprint of the current
settings and judges an instance again when they differ. A verdict cache can key on the
same function (adding its own deliverable digest).

The endpoint is recorded as `cowork_judge.safety.redact.mask_url` prints it: a token carried in
the URL never reaches a document (so two URLs that differ only in such a token count as
one endpoint).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from cowork_judge import ABI, __version__
from cowork_judge.safety.redact import mask_url
from cowork_judge.config.judge_config import JudgeConfig
from cowork_judge.config.effects import fingerprint_settings
from cowork_judge.run.instruction import find_instruction

FINGERPRINT_SCHEMA = "cowork-judge/verdict-fingerprint/v2"
"""v2 (issue 39): every setting of kind ``verdict`` in `config.effects.EFFECTS` (v1 lacked JUDGE_GUARD's scan,
JUDGE_GUARD_ROW, JUDGE_SKIP and JUDGE_RESPONSE_FILE); a v2 document is also sealed (`cowork_judge.core.integrity`)."""
PROMPT_FILE = "task_prompt.md"


MAX_HASHED_BYTES = 256 * 1024 * 1024
"""Largest file hashed (bytes); a larger one is recorded by its size only."""


def _sha256_file(path: Path) -> str | None:
    """SHA-256 of a regular file; None when it is missing or unreadable. A FIFO or device is
    never opened for reading (it could block the run): it is recorded as what it is."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return "not-a-regular-file"
        if st.st_size > MAX_HASHED_BYTES:
            return f"size:{st.st_size}"
        h = hashlib.sha256()
        with os.fdopen(fd, "rb", closefd=False) as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        return h.hexdigest()
    except OSError:
        return None
    finally:
        os.close(fd)


def verdict_ingredients(config: JudgeConfig, tests_dir: Path) -> dict[str, Any]:
    """What decides the verdicts of a run of `config` on the instance whose tests folder is
    `tests_dir` (see the module docstring), as a JSON-ready mapping.

    Digests are SHA-256 hex strings; a missing file gives None. The instruction is the text
    the run would use (`run.instruction.find_instruction`: JUDGE_INSTRUCTION_FILE, the tests
    folder's instruction files, else the built-in default). Never raises.
    """
    instruction, _, _ = find_instruction(tests_dir, config.instruction_file)
    return {
        "schema": FINGERPRINT_SCHEMA,
        "judge_version": __version__,
        "abi": ABI,
        **fingerprint_settings(config),
        "rubric_sha256": _sha256_file(tests_dir / "rubric.json"),
        "task_prompt_sha256": _sha256_file(tests_dir / PROMPT_FILE),
        "instruction_sha256": hashlib.sha256(instruction.encode("utf-8", "surrogatepass")).hexdigest(),
    }


def sampling_ingredients(config: JudgeConfig) -> dict[str, Any]:
    """What JUDGE_SAMPLES, JUDGE_SAMPLING, JUDGE_SAMPLE_TEMPERATURE, JUDGE_PANEL (each judge's
    name, model, masked endpoint and weight — never a key or its variable) and
    JUDGE_PANEL_VOTE add to a sampled run's fingerprint (and to its verdict-cache key)."""
    return {
        "samples": config.samples,
        "sampling_mode": config.sampling,
        "temperature": config.sample_temperature if config.samples > 1 else None,
        "panel": [{"name": j.name, "model": j.model, "endpoint": mask_url(j.base_url) if j.base_url else None,
                   "weight": j.weight} for j in config.panel],
        "panel_vote": config.panel_vote,
    }


def digest(ingredients: dict[str, Any]) -> str:
    """SHA-256 (hex) of `ingredients` as canonical JSON (sorted keys, no spaces, UTF-8)."""
    text = json.dumps(ingredients, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def verdict_fingerprint(config: JudgeConfig, tests_dir: Path) -> dict[str, Any]:
    """``{"digest": hex, **ingredients}``: what ``details.fingerprint`` of a result holds."""
    ingredients = verdict_ingredients(config, tests_dir)
    return {"digest": digest(ingredients), **ingredients}


def fingerprint_digest(doc_fingerprint: Any) -> str | None:
    """The digest stored in a document's ``details.fingerprint`` (None: absent or malformed)."""
    stored = doc_fingerprint.get("digest") if isinstance(doc_fingerprint, dict) else None
    return stored if isinstance(stored, str) else None
