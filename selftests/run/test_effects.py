"""Issue 39 item 2: every setting says what it changes in a stored result, and that is what it does.

Each setting of `config.judge_config.ENV_NAMES` has one `config.effects.Effect`; for every setting this
test changes its value (`OTHER`, which must name every setting too: a new setting fails here
until it is classified and given another value) and checks the class:

- ``verdict``: the verdict fingerprint changes (a resume judges again);
- ``score``: the fingerprint stays, and `fleet.rescore.restate` re-scores a stored document
  under the new value, naming the change (a resume re-scores without model calls);
- ``none``: the fingerprint stays, and `restate` changes nothing.
"""

from __future__ import annotations

import json

import pytest
from fleet.factory import DELIVERED, IDENTITY, ROWS, verdicts

from cowork_judge.core.cost import ModelUsage, judge_cost
from cowork_judge.core.fold import RunFacts, fold
from cowork_judge.core.scoring import ScoringPolicy
from cowork_judge.fleet.rescore import restate
from cowork_judge.core.findings import Finding, GuardReport
from cowork_judge.config.judge_config import ENV_NAMES, load_config
from cowork_judge.config.effects import EFFECTS, fingerprint_settings
from cowork_judge.run.fingerprint import verdict_fingerprint

PANEL = json.dumps([{"name": "a", "model": "m1"}, {"name": "b", "model": "m2"}])
OTHER: dict[str, str] = {
    "api_key": "sk-other-key-0123456789", "base_url": "http://127.0.0.1:9/v1", "model": "other-model", "backend": "codex",
    "batch": "2", "concurrency": "7", "per_timeout_sec": "33", "retry.max_tries": "2", "resplit": "0", "deadline_sec": "99",
    "start_jitter_sec": "3", "retry.backoff_max_sec": "5", "max_turns": "3", "scoring.reward_mode": "binary",
    "scoring.pass_threshold": "0.9", "scoring.pass_compare": "gt", "lenient_delivery": "1", "chat_fallback": "0",
    "evidence_sec": "0", "metric_id": "other_metric", "aux_files": "notes.md", "instruction_file": "other.md",
    "scoring.systemic_fraction": "0.9", "scoring.systemic_min": "5", "skip": "1", "scoring.unjudged_negative": "ignore", "scoring.ungrounded": "keep",
    "workflow_concurrency": "9", "workflow_deadline_share": "0.5", "workflow_start_jitter_sec": "2",
    "code_timeout_sec": "5", "response_file": "answer.txt", "soffice": "/opt/soffice", "chromium": "/opt/chromium",
    "requested_version": "9.9.9", "version_source": "injection", "app_dir": "/a", "logs_dir": "/l", "tests_dir": "/t",
    "work_dir": "/w", "alt_output_dir": "/o", "verdict_cache_dir": "/tmp/cache", "gateway_auth": "placeholder",
    "instance_id": "inst-7", "send_instance_id": "1", "guard": "penalize", "guard_row": "1", "samples": "3",
    "sampling": "fixed", "sample_temperature": "0.7", "panel_vote": "unanimous", "limiter_url": "redis://127.0.0.1:1/0",
    "fleet_rpm": "60", "fleet_tpm": "1000", "limiter_key": "k", "panel": PANEL,
    "prices": json.dumps({"sim-judge": {"input": 1, "output": 2}}),
}
"""Setting → an environment value other than its default."""
SAMPLED_ONLY = {"sampling", "sample_temperature", "panel_vote"}
"""Settings recorded only by a sampled run: compared with JUDGE_SAMPLES=3 on both sides."""
FINDING = Finding(channel="final_message", line=1, kind="evaluator_address", rule="en.give_score", excerpt="full marks")


def test_every_setting_is_classified_and_has_another_value():
    assert set(EFFECTS) == set(ENV_NAMES), "classify the new setting in config.effects.EFFECTS (verdict, score or none)"
    assert set(OTHER) == set(ENV_NAMES), "give the new setting another value in OTHER"
    for name, effect in EFFECTS.items():
        assert effect.kind in ("verdict", "score", "none") and effect.why, name
        assert (effect.key is not None) == (effect.kind == "verdict" or name == "guard"), name
    keys = [e.key for e in EFFECTS.values() if e.key is not None]
    assert len(keys) == len(set(keys)), "two settings share a fingerprint key"


def _stored(config_env: dict[str, str]):
    """A stored document of a run under `config_env`: flagged by the guard, with priced tokens."""
    config = load_config(config_env).config
    guard = GuardReport(mode=config.guard, scanned=config.guard != "off", flagged=True, findings=[FINDING])
    usage = {"sim-judge": ModelUsage(calls=2, input_tokens=1000, output_tokens=100)}
    facts = RunFacts(identity=IDENTITY.model_copy(update={"metric_id": config.metric_id}), delivery=DELIVERED, guard=guard,
                     calls=2, cost=judge_cost(usage, config.prices) if config.prices else None)
    return fold(ROWS, verdicts(r3=0.5), config.scoring, facts)


@pytest.mark.parametrize("name", sorted(ENV_NAMES))
def test_each_setting_does_what_its_class_says(name, tmp_path):
    (tmp_path / "rubric.json").write_text('{"rubrics": [{"id": "a", "description": "d", "weight": 1}]}')
    (tmp_path / "other.md").write_text("Judge strictly.\n")
    base = {"JUDGE_SAMPLES": "3"} if name in SAMPLED_ONLY else {}
    if name == "prices":  # a run without prices made calls: its tokens per model are unknown; compare two price tables
        base["JUDGE_PRICES"] = json.dumps({"sim-judge": {"input": 3, "output": 4}})
    changed = dict(base, **{ENV_NAMES[name][0]: OTHER[name]})
    if name == "instruction_file":
        changed[ENV_NAMES[name][0]] = str(tmp_path / "other.md")
    before, after = load_config(base).config, load_config(changed).config
    assert before != after, f"{name}: OTHER does not change it"
    effect = EFFECTS[name]
    same_fingerprint = verdict_fingerprint(before, tmp_path)["digest"] == verdict_fingerprint(after, tmp_path)["digest"]
    new = restate(_stored(base), source_sha256="0" * 64, policy=after.scoring, guard=after.guard, metric_id=after.metric_id,
                  prices=after.prices)
    if effect.kind == "verdict":
        assert not same_fingerprint, f"{name} decides verdicts but the fingerprint does not follow it"
    elif effect.kind == "score":
        assert same_fingerprint, f"{name} is re-scored from stored verdicts: it must not re-judge"
        assert new.rejudge is None and new.changes, f"{name}: restate does not apply it"
        assert new.doc.details.warnings[-1].startswith("rescored without model calls from result sha256 " + "0" * 64)
    else:
        assert same_fingerprint and not new.changes, name


def test_the_guard_is_rescored_between_flag_and_penalize_and_judged_again_when_off():
    flag, penalize, off = (load_config({"JUDGE_GUARD": m}).config for m in ("flag", "penalize", "off"))
    assert fingerprint_settings(flag) == fingerprint_settings(penalize) != fingerprint_settings(off)
    stored = _stored({})
    new = restate(stored, source_sha256="0" * 64, policy=ScoringPolicy(), guard="penalize", metric_id=stored.metric_id,
                  prices={})
    assert stored.task_score == pytest.approx(5 / 6) and new.doc.task_score == 0.0 and new.doc.guard.penalized
    unscanned = _stored({"JUDGE_GUARD": "off"})
    again = restate(unscanned, source_sha256="0" * 64, policy=ScoringPolicy(), guard="penalize", metric_id="rubric_llm_judge",
                    prices={})
    assert again.rejudge is not None and "not scanned" in again.rejudge
    assert restate(new.doc, source_sha256="1" * 64, policy=ScoringPolicy(), guard="penalize", metric_id=stored.metric_id,
                   prices={}).changes == []  # idempotent: a re-scored result is kept as it is


def test_the_resume_table_in_the_docs_names_every_verdict_and_score_setting():
    """Trial 12 F14: docs/benchmarks.md's resume table left out JUDGE_UNGROUNDED, which a resume re-scores. The
    table's "verdict" and "score" rows must name each setting of that kind (`EFFECTS`) by its variable."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line.strip().startswith("| verdict |")
            or line.strip().startswith("| score |")}
    assert set(rows) == {"verdict", "score"}, rows
    for name, effect in EFFECTS.items():
        if effect.kind in rows:
            env = ENV_NAMES[name][0]
            assert f"`{env}`" in rows[effect.kind], f"{env} ({effect.kind}) is not in the docs' resume table"
