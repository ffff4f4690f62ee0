"""Golden snapshots of every prompt family: a prompt change is a reviewed diff.

Each family is built by the package's own prompt code from the example instance (`tests/`,
the deck rollout in `examples/rollouts/deck/`) with deterministic inputs, rendered as text
and compared with `selftests/golden/prompts/<family>.txt`:

- ``agentic_openai``: the `openai` backend's opening messages of a block (system + first
  user message) and its structured-output answer format;
- ``agentic_openai_no_structured_output``: the same block's first user message when the
  endpoint has no structured output (the schema is spelled out in the tail);
- ``agentic_cli``: the one prompt of a `codex`/`claude` attempt (`cli_base.cli_prompt`);
- ``agentic_cli_reask``: the prompt of that attempt's grounding re-ask run for one row whose
  quote was not found (`cli_base.cli_reask_prompt`);
- ``ppt_visual``: ppt_judge's visual pass on one page (one row group);
- ``ppt_content_a`` / ``ppt_content_b``: ppt_judge's content pass A (the row against the
  deck's slide text) and pass B (the row on one page image);
- ``ppt_content_type2``: the correctness check of a type2 row against its anchors;
- ``answer_match_answer`` / ``answer_match_steps`` / ``answer_match_process``: what
  answer_match sends through its transport (final answer; key steps; step grading);
- ``trajectory_judge``: a row judged on the agent's trajectory (the real terminus-2 fixture,
  `selftests/fixtures/trajectories/`, trimmed to a small budget so the cuts show).

Page images are replaced by a placeholder naming their size (the bytes are a fixed PNG);
the prompts' text is compared byte for byte. After an intended prompt change, regenerate
and review the diff:

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest selftests/golden -q
"""

from __future__ import annotations

import base64
import difflib
import json
import os
import shutil
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cowork_judge.agentic.cli_base import cli_prompt, cli_reask_prompt
from cowork_judge.agentic.block_prompt import first_user_message, system_message
from cowork_judge.core.rubric import load_rubric, normalize_rubric
from cowork_judge.core import grounding
from cowork_judge.core.verdicts import Verdict, verdict_schema
from cowork_judge.evidence.structure import extract_structure
from cowork_judge.safety.redact import Redactor
from cowork_judge.run.answer import final_message
from cowork_judge.config.judge_config import load_config
from cowork_judge.run.paths import RunPaths
from cowork_judge.workflow._contract import ModelReply, WorkflowContext
from cowork_judge.workflow.answer_match import rows as answer_rows
from cowork_judge.workflow.answer_match import run as run_answer_match
from cowork_judge.workflow.ppt_judge import content_prompt
from cowork_judge.workflow.ppt_judge import prompt as visual_prompt
from cowork_judge.workflow.ppt_judge.assets import load_task_checks
from cowork_judge.workflow.ppt_judge.deck import SLIDE_TEXT_MAX_CHARS, Page

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "prompts"
TESTS = REPO / "tests"
ROLLOUT = REPO / "examples" / "rollouts" / "deck"
DECK = ROLLOUT / "app" / "output" / "build_effective_agents.pptx"
DECK_REL = "output/build_effective_agents.pptx"
# a fixed 1×1 PNG: every page image of the snapshots has these bytes
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


# --------------------------------------------------------------------------- rendering and comparing


def _part(part: dict[str, Any]) -> str:
    if part.get("type") == "text":
        return "--- text ---\n" + part["text"]
    if part.get("type") == "image_url":
        url = part["image_url"]["url"]
        head, _, data = url.partition(",")
        return f"--- image_url (detail={part['image_url'].get('detail')}) ---\n{head},<{len(base64.b64decode(data))} bytes>"
    return "--- " + str(part.get("type")) + " ---\n" + json.dumps(part, ensure_ascii=False, sort_keys=True)


def render(messages: list[dict[str, Any]], response_format: dict[str, Any] | None = None) -> str:
    """Chat messages (and the request's answer format) as reviewable text."""
    out: list[str] = []
    for m in messages:
        out.append(f"=== {m['role']} ===")
        content = m["content"]
        out.append(content if isinstance(content, str) else "\n".join(_part(p) for p in content))
    if response_format is not None:
        out.append("=== response_format ===")
        out.append(json.dumps(response_format, ensure_ascii=False, indent=1, sort_keys=True))
    return "\n".join(out) + "\n"


def check_golden(family: str, text: str) -> None:
    """Compare one prompt family with its golden file; the run's random spotlight boundary
    (`spotlight`, new every run) is written as ``{boundary}`` so the files are stable."""
    from cowork_judge.safety import spotlight

    text = text.replace(spotlight.boundary(), "{boundary}")
    path = GOLDEN / f"{family}.txt"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.is_file(), f"{path.relative_to(REPO)} is missing: UPDATE_GOLDEN=1 .venv/bin/python -m pytest selftests/golden"
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "\n".join(difflib.unified_diff(expected.splitlines(), text.splitlines(), f"golden/{family}.txt", "built now",
                                              lineterm="", n=2))
        pytest.fail(f"the {family} prompt changed (review it, then UPDATE_GOLDEN=1 to accept):\n{diff}", pytrace=False)


# --------------------------------------------------------------------------- deterministic inputs from the example


@pytest.fixture(scope="module")
def rubric():
    return {c.id: c for c in load_rubric(TESTS / "rubric.json").criteria}


@pytest.fixture(scope="module")
def task():
    """(instruction, task prompt, the agent's final message) of the example deck rollout."""
    config = load_config({}).config
    paths = RunPaths.from_config(config, app_dir=ROLLOUT / "app", logs_dir=ROLLOUT / "logs", tests_dir=TESTS,
                                 work_dir=REPO / "does-not-matter")
    message, _source, _notes, _unreadable = final_message(paths, config)
    assert message and "build_effective_agents" in message
    return ((TESTS / "judge_instruction.md").read_text(encoding="utf-8"),
            (TESTS / "task_prompt.md").read_text(encoding="utf-8"), message)


@pytest.fixture()
def workspace(tmp_path):
    """A block workspace holding the example deliverable (no evidence folder)."""
    (tmp_path / "ws" / "output").mkdir(parents=True)
    shutil.copy2(DECK, tmp_path / "ws" / "output" / DECK.name)
    return tmp_path / "ws"


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The example deck's slides as ppt_judge pages: text from the structure reader, a fixed image."""
    folder = tmp_path_factory.mktemp("pages")
    result = extract_structure(DECK, strict=False)
    assert result.ok and result.slides
    out = []
    for s in result.slides:
        image = folder / f"page-{s.index:03d}.png"
        image.write_bytes(PNG)
        out.append(Page(s.index, s.index, image, f"pages/build_effective_agents/page-{s.index:03d}.png", s.title,
                        s.text[:SLIDE_TEXT_MAX_CHARS]))
    return out


def _agentic_rows(rubric):
    return [c for c in rubric.values() if c.judge_method == "agentic"][:4]  # one block of JUDGE_BATCH=4 rows


# --------------------------------------------------------------------------- the families


def test_agentic_openai_block(rubric, task, workspace):
    instruction, task_prompt, message = task
    rows = _agentic_rows(rubric)
    assert len(rows) == 4
    schema = verdict_schema(rows, quote=True)  # as the openai backend sends it
    messages = [{"role": "system", "content": system_message(instruction)},
                {"role": "user", "content": first_user_message(rows, workspace, task_prompt, message)}]
    fmt = {"type": "json_schema", "json_schema": {"name": "verdicts", "schema": schema, "strict": True}}
    check_golden("agentic_openai", render(messages, fmt))
    plain = first_user_message(rows, workspace, task_prompt, message, schema=schema)
    check_golden("agentic_openai_no_structured_output", render([{"role": "user", "content": plain}]))


def test_agentic_cli_prompt(rubric, task, workspace):
    instruction, task_prompt, message = task
    ctx = SimpleNamespace(task_prompt=task_prompt, instruction=instruction, redactor=Redactor(),
                          delivery=SimpleNamespace(final_message=message))
    check_golden("agentic_cli", render([{"role": "user", "content": cli_prompt(ctx, _agentic_rows(rubric), workspace)}]))
    row = next(c for c in _agentic_rows(rubric) if c.polarity == "positive" and not grounding.about_absence(c))
    first = grounding.ground([row], {row.id: Verdict(id=row.id, hit=True, judged=True, reason="it is there",
                                                     quote="a sentence that is in no deliverable")},
                             grounding.evidence_of(["the deliverable's own text"]))  # blank evidence: exempt (trial 37)
    assert first[row.id].grounded is False
    check_golden("agentic_cli_reask", render([{"role": "user", "content": cli_reask_prompt(ctx, [row], workspace, first)}]))


def test_ppt_visual_pass(rubric, pages):
    group = [c for c in rubric.values() if c.workflow.name == "ppt_judge" and c.workflow.group == "layout"]
    assert group
    page = pages[1]
    messages = visual_prompt.messages(page, group, total_pages=len(pages), deck_rel=DECK_REL)
    check_golden("ppt_visual", render(messages, visual_prompt.response_format(group)))


def test_ppt_content_passes(rubric, pages):
    checks = load_task_checks(TESTS / "workflow_assets" / "ppt_judge")
    row = rubric["T1-ROUTING"]
    hints = checks.type1[row.id].search_hints
    assert hints
    a = content_prompt.pass_a_messages(row, hints, pages, total_pages=len(pages), deck_rel=DECK_REL)
    check_golden("ppt_content_a", render(a, content_prompt.response_format(row, "A")))
    b = content_prompt.pass_b_messages(row, hints, pages[2], total_pages=len(pages), deck_rel=DECK_REL)
    check_golden("ppt_content_b", render(b, content_prompt.response_format(row, "B")))
    row2 = rubric["T2-WORKFLOWS-AGENTS"]
    check2 = checks.type2[row2.id]
    anchors = [(ref, checks.anchors[ref]) for ref in checks.anchor_refs(check2)]
    assert anchors
    t2 = content_prompt.type2_messages(row2, anchors, pages[2], total_pages=len(pages), deck_rel=DECK_REL,
                                       deck_wide=check2.scope == "deck_wide")
    check_golden("ppt_content_type2", render(t2, content_prompt.response_format(row2, "type2")))


class _Recorder:
    """A workflow transport that records every request and answers from a script."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.requests: list[tuple[str, list[dict[str, Any]], dict[str, Any] | None]] = []
        self.limit = 1

    def complete(self, messages, *, label, response_format=None, timeout_sec=None):
        self.requests.append((label, messages, response_format))
        return ModelReply(self.replies.pop(0))


def _answer_match_ctx(transport: _Recorder, message: str) -> WorkflowContext:
    audit = SimpleNamespace(append=lambda name, record: None)
    return WorkflowContext(name="answer_match", settings={}, artifacts={}, evidence_dir=Path("/nonexistent"),
                           work_dir=Path("/nonexistent"), delivery=SimpleNamespace(final_message=message, files=[]),
                           deadline_at=1e18, cancel=threading.Event(), transport=transport, audit=audit)


QUESTION = "A 2.0 kg block slides from rest down a frictionless ramp 1.25 m high. How fast is it moving at the bottom?"
SOLUTION = "Energy is conserved: m g h = m v^2 / 2, so v = sqrt(2 g h) = sqrt(2 * 9.8 * 1.25) = 4.95 m/s."
RESPONSE = "Using energy conservation, v = sqrt(2gh) = sqrt(24.5), which is about 5 m per second, in the direction of the ramp."


def test_answer_match_requests():
    crit = normalize_rubric([
        answer_rows.answer_row("ANSWER", "4.95 m/s", rel_tol=0.01, question=QUESTION, solution=SOLUTION),
        answer_rows.process_row("PROCESS", SOLUTION, question=QUESTION),
    ]).criteria
    verdict = {"verdicts": [{"id": "ANSWER", "reason": "r", "quote": "which is about 5 m per second", "hit": True, "level": 1}]}
    steps = {"steps": ["state energy conservation", "solve for v", "substitute the numbers"]}
    quotes = {1: "Using energy conservation", 2: "v = sqrt(2gh)", 3: "sqrt(24.5)"}  # found in RESPONSE: no re-ask
    graded = {"verdicts": [{"id": f"PROCESS#s{i}", "reason": "r", "quote": quotes[i], "hit": True, "level": 1}
                           for i in (1, 2, 3)]}
    transport = _Recorder([json.dumps(verdict), json.dumps(steps), json.dumps(graded)])
    verdicts = run_answer_match(list(crit), _answer_match_ctx(transport, RESPONSE), 60)
    assert [v.judged for v in verdicts] == [True, True]
    assert [label for label, _, _ in transport.requests] == ["answer-ANSWER", "steps-PROCESS", "process-PROCESS"]
    for family, (_, messages, fmt) in zip(("answer_match_answer", "answer_match_steps", "answer_match_process"),
                                          transport.requests):
        check_golden(family, render(messages, fmt))


def test_trajectory_judge_request():
    from cowork_judge.segment.trajectory import parse_trajectory
    from cowork_judge.workflow.trajectory_judge import run as run_trajectory_judge

    fixture = REPO / "selftests" / "fixtures" / "trajectories" / "terminus-2-hello-world-invalid-json.trajectory.json"
    traj = parse_trajectory(json.loads(fixture.read_text(encoding="utf-8")))
    crit = normalize_rubric([{"id": "P-FIX", "description": "After its reply was rejected, the agent created hello.txt "
                                                            "with printf", "weight": 1, "judge_method": "workflow",
                              "workflow_name": "trajectory_judge"}]).criteria
    reply = {"verdicts": [{"id": "P-FIX", "reason": "step 3", "quote": "Analysis: Task already completed.", "hit": True,
                           "level": None}]}
    transport = _Recorder([json.dumps(reply)])
    ctx = _answer_match_ctx(transport, "")
    ctx = WorkflowContext(**{**ctx.__dict__, "name": "trajectory_judge", "settings": {"budget_chars": 2000},
                             "delivery": SimpleNamespace(trajectory=traj, unreadable=[])})
    [verdict] = run_trajectory_judge(list(crit), ctx, 60)
    assert verdict.judged and verdict.grounded is True
    [(label, messages, fmt)] = transport.requests
    assert label == "trajectory-P-FIX"
    check_golden("trajectory_judge", render(messages, fmt))


def test_a_changed_prompt_fails_with_a_readable_diff(rubric, pages, monkeypatch):
    monkeypatch.delenv("UPDATE_GOLDEN", raising=False)
    monkeypatch.setattr(content_prompt, "SYSTEM_TEXT", content_prompt.SYSTEM_TEXT + "\nA new rule nobody reviewed.")
    row = rubric["T1-ROUTING"]
    hints = load_task_checks(TESTS / "workflow_assets" / "ppt_judge").type1[row.id].search_hints
    a = content_prompt.pass_a_messages(row, hints, pages, total_pages=len(pages), deck_rel=DECK_REL)
    with pytest.raises(pytest.fail.Exception) as failed:
        check_golden("ppt_content_a", render(a, content_prompt.response_format(row, "A")))
    assert "the ppt_content_a prompt changed" in str(failed.value)
    assert "\n+A new rule nobody reviewed." in str(failed.value) and "UPDATE_GOLDEN=1" in str(failed.value)
