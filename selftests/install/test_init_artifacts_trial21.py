"""Trial 21 note: init filled Harbor's template's ``artifacts = []`` as ``artifacts = [ "/app/output"]`` (a stray
space after the bracket); it writes ``artifacts = ["/app/output"]``, and an item after a comma keeps one space."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from install.test_init import harbor_init, task


def _init(root: Path) -> str:
    """Run a real ``python -m cowork_judge init`` on `root`; its task.toml's text."""
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "init", str(root)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return (root / "task.toml").read_text()


def test_harbor_inits_empty_artifacts_is_filled_without_a_stray_space(tmp_path):
    root = harbor_init(tmp_path)
    assert "\nartifacts = []\n" in (root / "task.toml").read_text()  # Harbor's template, as the trial met it
    assert '\nartifacts = ["/app/output"]\n' in _init(root)


@pytest.mark.parametrize("line, written", [
    ("artifacts = []", 'artifacts = ["/app/output"]'),
    ("artifacts = [ ]", 'artifacts = ["/app/output"]'),
    ('artifacts = ["/logs/x",]', 'artifacts = ["/logs/x", "/app/output"]'),
    ('artifacts = ["/logs/x"]', 'artifacts = ["/logs/x", "/app/output"]'),
])
def test_an_inline_artifacts_array_gets_one_space_after_a_comma_only(tmp_path, line, written):
    root = task(tmp_path, f'version = "1.0"\n{line}\n\n[verifier]\nenvironment_mode = "separate"\n')
    assert f"\n{written}\n" in _init(root)
