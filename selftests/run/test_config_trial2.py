"""Issue 39, trial 2 leftovers: an integer or number setting that does not parse names the
setting, the value and what is expected — never Python's "invalid literal for int()"."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cowork_judge.config.judge_config import _KNOBS, load_config


def test_judge_samples_three_names_the_setting_the_value_and_what_is_expected():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "config"], capture_output=True, text=True, timeout=120,
                          env={**env, "JUDGE_SAMPLES": "three"})
    assert "warning: JUDGE_SAMPLES='three' must be an integer ≥ 1; using the default 1" in proc.stderr + proc.stdout
    assert "invalid literal" not in proc.stderr + proc.stdout


NUMERIC = sorted(env_names[0] for env_names, parser in _KNOBS.values()
                 if getattr(parser, "__qualname__", "").startswith(("_int.", "_float.", "_share")))


@pytest.mark.parametrize("name", NUMERIC)
@pytest.mark.parametrize("value", ["three", "1e", "nan", "-5"])
def test_every_numeric_setting_says_what_it_expects(name, value):
    loaded = load_config({name: value})
    [warning] = [w for w in loaded.warnings if w.startswith(f"{name}=")]
    assert warning.startswith(f"{name}={value!r} must be a") and "; using the default " in warning, warning
    assert "invalid literal" not in warning and "could not convert" not in warning and "None" not in warning


@pytest.mark.parametrize("name", ["JUDGE_METRIC_ID", "JUDGE_INSTANCE_ID"])
@pytest.mark.parametrize("value", ["rubric\nother", "tab\there", "nul\x00x"])
def test_a_label_setting_with_a_control_character_is_not_written_as_given(name, value):
    """Trial 12 side note: ``JUDGE_METRIC_ID`` with a newline was written into every document and
    log line as is. A label is one line: the setting is refused by name and the default is used."""
    loaded = load_config({name: value})
    [warning] = [w for w in loaded.warnings if w.startswith(f"{name}=")]
    assert "control character" in warning and "; using the default" in warning, warning
    assert loaded.config.metric_id == "rubric_llm_judge" and loaded.config.instance_id is None
