"""The example instances' result documents, pinned byte for byte.

Each sample rollout the demo knows (``deck``, ``chat``, ``empty`` from the bundled example
``tests/`` and ``healthbench`` from ``examples/healthbench-bbd759b4/tests``) is judged the way
``cowork-judge demo`` judges it — the real command line in a subprocess, against the built-in
simulator's deterministic demo policy over HTTP on 127.0.0.1 — and the six documents it
writes (``result.json``, ``reward-details.json``, ``reward.json``, ``reward.txt`` and the original
1.3.6's ``reward_exit_message.json`` and ``judge_verdict.json``) are
compared with the golden files under ``selftests/golden/examples/<rollout>/``.

Only fields that are truly volatile are normalised, and nothing else:
- wall-clock timings: the number after every JSON key ``"seconds"``, ``"judge_seconds"`` or
  ``"elapsed_seconds"`` and after ``"timings": {"total":`` (the original 1.3.6's usage fields)
  becomes ``"<seconds>"``;
- the byte size of the kept evidence (``details.evidence.kept.bytes``): it sums rendered page
  images, whose PNG bytes vary run to run with LibreOffice's rendering (seen: ±1 byte);
  the count of kept files stays pinned;
- the simulator's endpoint: the demo starts it on a free port, so the port in
  ``details.fingerprint.endpoint`` becomes ``<port>`` and the fingerprint's ``digest``
  (a hash over that endpoint among the rest) becomes ``<digest>``; every other field of
  the fingerprint stays pinned; the seal's ``result_sha256`` (a hash over the whole document,
  timings included) becomes ``<digest>`` too (the reward files' digests stay pinned);
- the run's random id (``details.run_id``, 32 hex digits, new every run) becomes ``<run_id>``;
- temp and checkout paths: the run's temp directory becomes ``<tmp>`` and the repository
  root becomes ``<repo>`` wherever they occur inside a string.
The comparison is on the written text itself, so every other byte (rewards, contributions,
reasons, key order, float spelling, indentation, token and call counts) must match.

Regenerate after an INTENDED change of the documents (and review the diff):

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q selftests/test_example_pin.py
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import REPO

GOLDEN = REPO / "selftests" / "golden" / "examples"
DOCUMENTS = ("result.json", "reward-details.json", "reward.json", "reward.txt", "reward_exit_message.json",
             "judge_verdict.json")
ROLLOUTS = ("deck", "chat", "empty", "healthbench")

_KEPT_BYTES = re.compile(r'("kept": \{\s*"files": [0-9]+,\s*"bytes": )[0-9]+')
_SIM_PORT = re.compile(r'("endpoint": "http://127\.0\.0\.1:)[0-9]+')
_DIGEST = re.compile(r'("fingerprint": \{\s*"digest": )"[0-9a-f]+"')
_TIMING = re.compile(r'"(seconds|judge_seconds|elapsed_seconds)": -?[0-9][0-9.eE+-]*')
_TIMINGS_TOTAL = re.compile(r'("timings": \{\s*"total": )-?[0-9][0-9.eE+-]*')
_SEAL = re.compile(r'("result_sha256": )"[0-9a-f]+"')
_RUN_ID = re.compile(r'("run_id": )"[0-9a-f]{32}"')


def _document_text(path: Path, tmp: str, repo: str) -> str:
    """The document's bytes as written, with only the volatile spans replaced (see the module docstring)."""
    text = path.read_text(encoding="utf-8")
    text = _TIMING.sub(lambda m: f'"{m.group(1)}": "<seconds>"', text)
    text = _TIMINGS_TOTAL.sub(r'\1"<seconds>"', text)
    text = _KEPT_BYTES.sub(r'\1"<bytes>"', text)
    text = _SIM_PORT.sub(r"\1<port>", text)
    text = _DIGEST.sub(r'\1"<digest>"', text)
    text = _SEAL.sub(r'\1"<digest>"', text)
    text = _RUN_ID.sub(r'\1"<run_id>"', text)
    return text.replace(tmp, "<tmp>").replace(repo, "<repo>")


@pytest.mark.parametrize("rollout", ROLLOUTS)
def test_example_result_documents_are_pinned(rollout: str, tmp_path: Path) -> None:
    if rollout == "deck" and shutil.which("soffice") is None and shutil.which("libreoffice") is None:
        pytest.skip("LibreOffice is not installed: the deck rollout renders evidence")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_", "ANTHROPIC_"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    logs = tmp_path / "logs"
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "demo", "--rollout", rollout, "--logs-dir", str(logs)],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-4000:]
    verifier = logs / "verifier"
    golden_dir = GOLDEN / rollout
    update = os.environ.get("UPDATE_GOLDEN") == "1"
    for name in DOCUMENTS:
        got = _document_text(verifier / name, str(tmp_path.resolve()), str(REPO))
        golden = golden_dir / name
        if update:
            golden_dir.mkdir(parents=True, exist_ok=True)
            golden.write_text(got, encoding="utf-8")
            continue
        assert golden.is_file(), f"no golden file {golden}; run: UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q selftests/test_example_pin.py"
        assert got == golden.read_text(encoding="utf-8"), f"{rollout}/{name} differs from {golden}"
