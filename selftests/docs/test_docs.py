"""The documentation: the generated configuration table, the README's shape and the site's nav."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from cowork_judge.config import judge_config as config

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
DOCS = REPO / "docs"


def _load_gen():
    spec = importlib.util.spec_from_file_location("gen_config_docs", REPO / "scripts" / "gen_config_docs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_config_docs"] = module
    spec.loader.exec_module(module)
    return module


gen = _load_gen()


def test_the_configuration_table_is_the_config():
    page = (DOCS / "configuration.md").read_text(encoding="utf-8")
    assert gen.updated(page) == page, "docs/configuration.md is stale: run `python scripts/gen_config_docs.py --write`"


def test_every_knob_is_in_the_table_with_its_default_and_a_meaning():
    page = (DOCS / "configuration.md").read_text(encoding="utf-8")
    table = {m.group(1): (m.group(2), m.group(3)) for m in
             re.finditer(r"^\| `([A-Z_]+)`[^|]* \| ([^|]+) \| [^|]* \| (.+) \|$", page, flags=re.MULTILINE)}
    assert set(table) == {names[0] for names in config.ENV_NAMES.values()}
    assert table["JUDGE_BATCH"][0] == f"`{config.JudgeConfig.model_fields['batch'].default}`"
    assert table["JUDGE_DEADLINE"][0] == "`1800`" and table["JUDGE_RESPLIT"][0] == "`1`" and table["JUDGE_SKIP"][0] == "`0`"
    assert all(meaning.strip() for _, meaning in table.values())
    assert f"`{config.CAPS['concurrency'][0]:g}`: {config.CAPS['concurrency'][1]}" in page


def test_a_changed_knob_makes_the_page_stale(monkeypatch, capsys):
    monkeypatch.setattr(config.JudgeConfig.model_fields["model"], "description", "JUDGE_MODEL: a new meaning.")
    assert gen.main([]) == 1
    out = capsys.readouterr()
    assert "+| `JUDGE_MODEL` | `gpt-5.5` |  | a new meaning. |" in out.out
    assert "gen_config_docs.py --write" in out.err


def test_a_page_without_the_markers_is_refused():
    with pytest.raises(ValueError, match="no generated block"):
        gen.updated("# Configuration\n\nno table here\n")


def test_the_readme_is_short_and_gives_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    install = 'python3 -m venv .venv && .venv/bin/pip install -e ".[pptx,workflow]" && .venv/bin/cowork-judge demo'
    run_tests = ".venv/bin/python -m pytest selftests -n 2 --dist loadfile"
    tests = f'python3 -m venv .venv && .venv/bin/pip install -e ".[dev]" && {run_tests}'
    assert install in text and tests in text
    assert f"\n{run_tests}\n" in (REPO / ".ci" / "steps.sh").read_text()  # CI runs the README's command


def test_the_ci_entry_runs_its_steps_file():
    """`.ci/run` stays the CI entry; its steps are a bash file with its extension beside it
    (`.ci/steps.sh`), so no extensionless script stands beside the `run` command module."""
    import subprocess

    entry = (REPO / ".ci" / "run").read_text()
    assert 'exec bash "$(dirname "$0")/steps.sh"' in entry and len(entry.splitlines()) <= 4
    assert (REPO / ".ci" / "steps.sh").read_text().startswith("#!/usr/bin/env bash\n")
    for script, shell in ((".ci/run", "sh"), (".ci/steps.sh", "bash")):
        assert subprocess.run([shell, "-n", str(REPO / script)], check=False).returncode == 0


def test_every_docs_page_is_in_the_nav_and_every_readme_link_resolves():
    nav = set(re.findall(r"([\w/.-]+\.md)\s*$", (REPO / "mkdocs.yml").read_text(), flags=re.MULTILINE))
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert nav == pages
    links = re.findall(r"\]\(((?:docs/)?[\w/.-]+\.md)(?:#[\w-]+)?\)", README.read_text(encoding="utf-8"))
    assert links and all((REPO / link).is_file() for link in links)
    top = {f"docs/{p}" for p in pages if "/" not in p or p.endswith("/index.md")} - {"docs/index.md"}
    assert top <= set(links)  # the README's index names every top-level page


def test_the_docs_agree_on_where_2_0_0_comes_from():
    """trial 2 #5: README and migration.md said the registry installs 2.0.0 while harbor-task.md said "not PyPI"; the
    registry's newest `cowork-judge` was 1.3.6. Each page now says 2.0.0 is not yet published there, names the
    private index or a checkout until it is, and how to check an index."""
    pages = {name: " ".join((REPO / name).read_text().split()) for name in ("README.md", "docs/migration.md",
                                                                            "docs/harbor-task.md")}
    for name, text in pages.items():
        assert "not yet published" in text and "pip index versions cowork-judge" in text, name
        assert "--index-url" in text, name
    assert "not PyPI: the name `cowork-judge` there is another project" not in pages["docs/harbor-task.md"]
    assert "checkout" in pages["README.md"] and "checkout" in pages["docs/migration.md"]
