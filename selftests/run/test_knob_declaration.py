"""Issue 38: adding a setting is one edit — `knob(...)` in its field (`cowork_judge.core.knobs`).

A setting declared once, on a subclass of the configuration here, reaches everything that used
to need an edit of its own: the environment reader (parsed, capped, its source named, no
"unknown variable" warning), the config docs table (`scripts/gen_config_docs.py`), the verdict
fingerprint (a ``verdict`` setting's change makes a resume judge again, a ``score`` or ``none``
setting's does not) and the masked view and the redactor (a secret). The fingerprints of the
existing settings are pinned to what d8de314 (before the declarations moved) computed: stored
batch results still resume.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

from pydantic import SecretStr

from cowork_judge.config import judge_config
from cowork_judge.config.effects import EFFECTS, effects, fingerprint_settings
from cowork_judge.config.judge_config import ENV_NAMES, JudgeConfig, load_config, masked, settings
from cowork_judge.core.knobs import Effect, integer, knob, text
from cowork_judge.run.fingerprint import verdict_fingerprint

REPO = Path(__file__).resolve().parents[2]
CREDENTIAL = "cred-0123456789abcdef"
PASSWORD = "hunter2hunter2hunter2"


def _secret(value: str) -> SecretStr:
    return SecretStr(text(value))


class WithNewSettings(JudgeConfig):
    """The configuration with three settings more, each declared in one place."""

    rounds: int = knob(3, ge=1, env="JUDGE_ROUNDS", parse=integer(1), cap=(5, "more rounds never settle a row"),
                       effect=Effect.verdict("sampling.rounds", "how many rounds each row is asked"),
                       doc="JUDGE_ROUNDS: rounds of asks per row.")
    vendor_credential: SecretStr | None = knob(None, env="JUDGE_VENDOR_CREDENTIAL", parse=_secret, secret="key",
                                               effect=Effect.none("a credential: which account pays"),
                                               doc="JUDGE_VENDOR_CREDENTIAL: the vendor's credential.")
    mirror_url: str | None = knob(None, env="JUDGE_MIRROR_URL", parse=text, secret="url",
                                  effect=Effect.none("where a copy of the result goes"),
                                  doc="JUDGE_MIRROR_URL: where a copy of the result is sent.")


def test_a_setting_declared_once_is_read_capped_and_named():
    loaded = load_config({"JUDGE_ROUNDS": "4"}, model=WithNewSettings)
    assert isinstance(loaded.config, WithNewSettings) and loaded.config.rounds == 4
    assert loaded.sources["rounds"] == "env:JUDGE_ROUNDS" and loaded.warnings == []  # not "not a setting the judge reads"
    capped = load_config({"JUDGE_ROUNDS": "50"}, model=WithNewSettings)
    assert capped.config.rounds == 5 and capped.sources["rounds"] == "capped:JUDGE_ROUNDS"
    assert capped.warnings == ["JUDGE_ROUNDS=50 is above the cap 5 (more rounds never settle a row); using 5"]
    bad = load_config({"JUDGE_ROUNDS": "many"}, model=WithNewSettings)
    assert bad.config.rounds == 3 and bad.warnings == ["JUDGE_ROUNDS='many' must be an integer ≥ 1; using the default 3"]


def test_a_setting_declared_once_reaches_the_config_docs(monkeypatch):
    spec = importlib.util.spec_from_file_location("gen_config_docs", REPO / "scripts" / "gen_config_docs.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    monkeypatch.setattr(judge_config, "JudgeConfig", WithNewSettings)
    table = gen.render()
    assert "| `JUDGE_ROUNDS` | `3` | `5`: more rounds never settle a row | rounds of asks per row. |" in table
    assert "| `JUDGE_VENDOR_CREDENTIAL` | — |  | the vendor's credential. |" in table
    monkeypatch.undo()
    assert "JUDGE_ROUNDS" not in gen.render()  # the real configuration is not changed by the subclass


def test_a_setting_declared_once_reaches_the_fingerprint_as_its_effect_says(tmp_path):
    (tmp_path / "rubric.json").write_text('{"rubrics": [{"id": "a", "description": "d", "weight": 1}]}')

    def digest(env: dict[str, str]) -> str:
        return str(verdict_fingerprint(load_config(env, model=WithNewSettings).config, tmp_path)["digest"])

    assert effects(WithNewSettings)["rounds"].kind == "verdict" and "rounds" not in EFFECTS
    assert fingerprint_settings(load_config({"JUDGE_ROUNDS": "4"}, model=WithNewSettings).config)["sampling"]["rounds"] == 4
    assert digest({"JUDGE_ROUNDS": "4"}) != digest({})  # a resume judges the instance again
    assert digest({"JUDGE_MIRROR_URL": "https://example.org/r"}) == digest({})  # `none`: the stored result stands


def test_a_secret_setting_declared_once_is_masked_and_redacted():
    env = {"JUDGE_VENDOR_CREDENTIAL": CREDENTIAL, "JUDGE_MIRROR_URL": f"https://copy:{PASSWORD}@mirror.example/r"}
    loaded = load_config(env, model=WithNewSettings)
    shown = masked(loaded.config)
    assert shown["vendor_credential"] == "****" + CREDENTIAL[-4:]
    assert PASSWORD not in json.dumps(shown, default=str) and "mirror.example" in shown["mirror_url"]
    written = loaded.redactor.text(f"sent with {CREDENTIAL} to https://copy:{PASSWORD}@mirror.example/r")
    assert CREDENTIAL not in written and PASSWORD not in written
    plain = load_config(env)  # the real configuration reads neither: nothing of theirs is a secret of its own
    assert "vendor_credential" not in masked(plain.config)


def test_the_settings_without_a_parser_have_readers_of_their_own():
    own = {name for name, (_, k) in settings().items() if k.parse is None}
    assert own == {"api_key", "base_url", "panel", "prices"}, "give the new setting a parser: knob(..., parse=...)"
    assert set(ENV_NAMES) == set(EFFECTS) == set(settings())


PINNED: dict[str, tuple[dict[str, str], str]] = {
    "defaults": ({}, "386081440672384d9997d0f143c43121241c9c38666b73a4c993d8e9f934229d"),
    "sampled panel, guard off": (
        {"JUDGE_SAMPLES": "3", "JUDGE_GUARD": "off",
         "JUDGE_PANEL": json.dumps([{"name": "a", "model": "m1"}, {"name": "b", "model": "m2"}])},
        "e9ceb4cd82cf4f78130aa15d03aa2205746b6d7336f8fdad86ba3570db6667c2"),
    "every verdict setting changed": (
        {"JUDGE_MODEL": "other-model", "JUDGE_BACKEND": "codex", "JUDGE_BASE_URL": "http://u:tok@127.0.0.1:9/v1",
         "JUDGE_BATCH": "2", "JUDGE_MAX_TURNS": "3", "JUDGE_RESPLIT": "0", "JUDGE_CHAT_FALLBACK": "0",
         "JUDGE_LENIENT_DELIVERY": "1", "JUDGE_EVIDENCE": "0", "JUDGE_AUX_FILES": "notes.md",
         "JUDGE_RESPONSE_FILE": "answer.txt", "JUDGE_SKIP": "1", "JUDGE_GUARD_ROW": "1", "JUDGE_SAMPLES": "3",
         "JUDGE_SAMPLING": "fixed", "JUDGE_SAMPLE_TEMPERATURE": "0.7", "JUDGE_PANEL_VOTE": "unanimous"},
        "016f3dc50ea57338c669522e15622ec0a11596188f3c3eeb8689b8469be0505f"),
}
"""Environment → sha256 of the canonical JSON of `fingerprint_settings`, as d8de314 computed it (and the key order a
result document shows, `config.effects.STORED_ORDER`: the example documents stay byte-identical)."""


def test_the_fingerprints_of_existing_settings_are_unchanged():
    for what, (env, pinned) in PINNED.items():
        got = json.dumps(fingerprint_settings(load_config(env).config), sort_keys=True, separators=(",", ":"), default=str)
        assert hashlib.sha256(got.encode()).hexdigest() == pinned, what
    stored = fingerprint_settings(load_config(PINNED["every verdict setting changed"][0]).config)
    assert list(stored) == ["backend", "model", "endpoint", "sampling", "response_file", "skip", "guard_row", "guard_scan"]
    assert list(stored["sampling"]) == ["batch", "max_turns", "resplit", "chat_fallback", "lenient_delivery", "evidence",
                                        "aux_files", "samples", "sampling_mode", "temperature", "panel", "panel_vote"]
