"""The version succeeds the original cowork-judge 1.2.0–1.3.6 on the registry (issue 34).

The release check refuses a version at or below the newest original (a constant, no network),
and every place that pins the version (the template's baked default, the repository's own
task.toml, the example packages' test.sh) names this package's version.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from cowork_judge import __version__

REPO = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"successor_{name}", REPO / "scripts" / "release" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


check_version = _load("check_version")


def test_this_version_is_above_the_newest_original():
    assert check_version.ORIGINAL_NEWEST == "1.3.6"
    assert check_version.succeeds_original(__version__)
    assert __version__ == "2.0.0"


@pytest.mark.parametrize(("version", "ok"), [
    ("0.2.0", False), ("1.2.0", False), ("1.3.6", False), ("1.3.6.0", False), ("1.3.6.post1", False),
    ("1.3.7", True), ("2.0.0", True), ("2.0.0rc1", True), ("10.0", True),
])
def test_versions_at_or_below_the_original_are_refused(version, ok):
    assert check_version.succeeds_original(version) is ok


def test_the_release_check_fails_on_a_colliding_version(monkeypatch, capsys):
    monkeypatch.setattr(check_version, "package_version", lambda: "1.3.6")
    monkeypatch.setattr(check_version, "template_version", lambda: "1.3.6")
    assert check_version.main([]) == 1
    assert "at or below '1.3.6'" in capsys.readouterr().err
    monkeypatch.setattr(check_version, "package_version", lambda: "not-a-version")
    monkeypatch.setattr(check_version, "template_version", lambda: "not-a-version")
    assert check_version.main([]) == 1


def test_the_release_check_passes_on_this_checkout():
    assert check_version.main([]) == 0


@pytest.mark.parametrize("path", ["templates/test.sh", "tests/test.sh", "examples/healthbench-bbd759b4/tests/test.sh"])
def test_every_baked_default_names_this_version(path):
    text = (REPO / path).read_text(encoding="utf-8")
    assert f'COWORK_JUDGE_DEFAULT_VERSION="{__version__}"' in text


def test_the_task_toml_and_the_docs_pin_this_version():
    assert f"${{COWORK_JUDGE_VERSION:-{__version__}}}" in (REPO / "task.toml").read_text(encoding="utf-8")
    assert f"${{COWORK_JUDGE_VERSION:-{__version__}}}" in (REPO / "docs" / "harbor-task.md").read_text(encoding="utf-8")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert re.search(r"pip install --upgrade 'cowork-judge\[workflow\]>=2\.0\.0'", readme), "the README's upgrade line"
