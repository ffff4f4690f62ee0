"""templates/test.sh: its generated parts match the package, and it is packaged verbatim."""

from __future__ import annotations

import json
import subprocess
from importlib import resources

import jsonschema

from cowork_judge import __version__
from cowork_judge.core.fold import fallback_document
from cowork_judge.core.legacy import with_legacy_fields
from cowork_judge.install.fallback import fallback_text
from cowork_judge.install.template import FALLBACK_BLOCK, baked_version, expected, read_block, template_text
from cowork_judge.config.judge_config import JudgeConfig
from install.harness import REPO

TEMPLATE = REPO / "templates" / "test.sh"
SCHEMA = json.loads(resources.files("cowork_judge").joinpath("schemas/result.schema.json").read_text())


def test_template_is_in_sync_with_the_package():
    text = TEMPLATE.read_text()
    assert baked_version(text) == __version__
    assert expected(text) == text, "run scripts/release/sync_template.py --write"


def test_embedded_fallback_is_the_judges_own_failed_before_judging_document():
    embedded = read_block(TEMPLATE.read_text(), FALLBACK_BLOCK)
    assert embedded == fallback_text(), "templates/test.sh embeds a stale copy: run scripts/release/sync_template.py --write"
    assert json.loads(embedded) == with_legacy_fields(fallback_document(JudgeConfig().identity()).model_dump(mode="json", by_alias=True))
    jsonschema.validate(json.loads(embedded), SCHEMA)


def test_filled_fallback_is_schema_valid_for_hostile_reasons(tmp_path):
    text = TEMPLATE.read_text()
    functions = text[: text.index("\ntrap ")]
    reason = 'quote " backslash \\ tab \t newline-free ü end'
    script = functions + '\nINF_CODE="judge:api_error"; INF_REASON="$1"; REQ="0.2.0"; SRC="injection"; fill_fallback\n'
    out = subprocess.run(["bash", "-c", script, "bash", reason], capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin", "JUDGE_MODEL": 'm"odel'}).stdout
    doc = json.loads(out)
    jsonschema.validate(doc, SCHEMA)
    assert doc["exit_code"] == "judge:api_error" and doc["requested_version"] == "0.2.0"
    assert doc["version_source"] == "injection" and doc["judge_model"] == 'm"odel'
    assert doc["exit_reason"].startswith('quote " backslash \\ tab ? newline-free ?? end'[:20])
    assert doc["status"] == "error" and doc["task_score"] == 0.0


def test_template_is_bash_syntax_clean_and_set_u_safe():
    subprocess.run(["bash", "-n", str(TEMPLATE)], check=True)
    assert "set -u" in TEMPLATE.read_text()


def test_installed_package_finds_the_template():
    assert template_text() == TEMPLATE.read_text()


def test_the_example_instances_carry_the_current_template():
    """The repository's example instances ship the template as `cowork-judge init` writes it
    (after a template change: `cowork-judge init . --force`, then copy tests/test.sh)."""
    for instance in (REPO / "tests", REPO / "examples" / "healthbench-bbd759b4" / "tests"):
        assert (instance / "test.sh").read_text() == template_text(), f"{instance}/test.sh is stale"


def test_test_sh_and_the_judge_read_judge_deadline_alike():
    """Trial 6 F11: ``5e3`` or `` 3600`` gave the judge a long deadline and test.sh the 1800 s
    default, so test.sh killed the judge at 1860 s before its own deadline could write a scored
    document. Both now read digits alone (spaces around, a fraction dropped by test.sh): test.sh
    never stops the judge before the judge's own deadline, and a value the judge refuses (with a
    warning) is the default 1800 s for both."""
    from cowork_judge.config.judge_config import load_config

    text = TEMPLATE.read_text()
    functions = text[: text.index("\ntrap ")]
    for value in ["3600", " 3600 ", "3600.9", "0900", "5e3", "+3600", "1_800", "inf", "abc", "", "0", "0.5", "-5", "99999999999999999999"]:
        shell = int(subprocess.run(["bash", "-c", functions + "\ndeadline_seconds\n"], capture_output=True, text=True, check=True,
                                   env={"PATH": "/usr/bin:/bin", "JUDGE_DEADLINE": value}).stdout)
        loaded = load_config({"JUDGE_DEADLINE": value})
        judge = loaded.config.deadline_sec
        refused = any("JUDGE_DEADLINE" in w for w in loaded.warnings)
        assert shell + 60 > judge, (value, shell, judge)  # test.sh's kill comes after the judge's deadline
        if refused or value.strip() in ("", "0"):
            assert judge == 1800.0 and shell == 1800, (value, shell, judge)
        else:
            assert shell == int(judge) or (judge < 1 and shell == 1800), (value, shell, judge)


def _fallback_model(env: dict[str, str]) -> str:
    text = TEMPLATE.read_text()
    script = text[: text.index("\ntrap ")] + '\nINF_CODE="judge:api_error"; INF_REASON="r"; REQ=""; SRC=""; fill_fallback\n'
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin", **env}).stdout
    doc = json.loads(out)
    return str(doc["judge_model"])


def test_the_fallback_records_the_panel_the_judge_would_have_asked_not_judge_model():
    """Left over from trial 7 F9: under ``JUDGE_PANEL`` test.sh's fallback wrote ``$JUDGE_MODEL``, a model
    a panel never asks. It now writes the judge's own label (`JudgeConfig.judge_model_label`)."""
    from cowork_judge.config.judge_config import load_config

    one = json.dumps([{"name": "a", "model": "m-one", "base_url": "http://127.0.0.1:9/v1", "api_key_env": "K1"}])
    two = json.dumps([{"name": "a", "model": "m-one"}, {"name": "b", "model": "m-two", "weight": 2}], indent=2)
    for panel in (one, two):
        env = {"JUDGE_MODEL": "not-asked", "JUDGE_PANEL": panel, "K1": "sk-" + "x" * 40}
        assert _fallback_model(env) == load_config(env).config.judge_model_label
    assert _fallback_model({"JUDGE_MODEL": "m-alone"}) == "m-alone"
    assert _fallback_model({"JUDGE_MODEL": "m-alone", "JUDGE_PANEL": " "}) == "m-alone"
    assert _fallback_model({"JUDGE_PANEL": '[{"name": "a", "model": "m\\"q"}]'}) == "panel"  # not read here: never JUDGE_MODEL
