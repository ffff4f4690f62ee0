"""The last-resort result document that test.sh writes when no judge could run.

It is the document ``cowork-judge run`` itself writes for a run that failed before judging
(status error, reward 0, every ``extra_fields`` key), with ``exit_code``/``exit_reason``
(and the version fields) filled in by test.sh. The engine ships it as
``cowork_judge/schemas/fallback-result.json``; until a version ships that file,
`generate_fallback_text` produces the same document by running the real command line on
a broken rubric, so the copy embedded in the template can be checked either way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

FALLBACK_FILE = Path(__file__).resolve().parents[1] / "schemas" / "fallback-result.json"
"""The engine's published copy (may be absent in versions that predate it)."""

PLACEHOLDER_EXIT_CODE = "judge:scorer_error"
PLACEHOLDER_REASON = "the judge could not run"


def packaged_fallback_text() -> str | None:
    """The engine's ``fallback-result.json`` text, or None when this version has none."""
    try:
        return FALLBACK_FILE.read_text(encoding="utf-8")
    except OSError:
        return None


def generate_fallback_text(python: str = sys.executable, timeout_sec: float = 120.0) -> str:
    """Run ``python -m cowork_judge run`` on an unreadable rubric and return its result.json, normalized.

    The environment is cleared of ``JUDGE_*``, ``OPENAI_*`` and ``COWORK_*`` so every field
    has its default; ``exit_code``/``exit_reason`` become the placeholders above,
    ``judge_seconds`` 0.0 and ``details.warnings`` []. Serialized like the engine
    (2-space indent, UTF-8, trailing newline).

    Raises:
        RuntimeError: the run wrote no result.json.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    with tempfile.TemporaryDirectory(prefix="cowork-fallback-") as tmp:
        root = Path(tmp)
        for sub in ("app", "logs", "tests", "work"):
            (root / sub).mkdir()
        (root / "tests" / "rubric.json").write_text("{ not json", encoding="utf-8")
        subprocess.run(
            [python, "-I", "-m", "cowork_judge", "run", "--app-dir", str(root / "app"), "--logs-dir", str(root / "logs"),
             "--tests-dir", str(root / "tests"), "--work-dir", str(root / "work")],
            env=env, capture_output=True, timeout=timeout_sec, cwd=tmp, check=False,
        )
        try:
            doc = json.loads((root / "logs" / "verifier" / "result.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RuntimeError(f"the judge wrote no readable result.json for a broken rubric: {exc}") from None
    doc["exit_code"] = PLACEHOLDER_EXIT_CODE
    doc["exit_reason"] = PLACEHOLDER_REASON
    doc["extra_fields"]["judge_seconds"] = 0.0
    doc["details"]["warnings"] = []
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def fallback_text() -> str:
    """The document to embed: the packaged file when present, else `generate_fallback_text()`."""
    packaged = packaged_fallback_text()
    return packaged if packaged is not None else generate_fallback_text()
