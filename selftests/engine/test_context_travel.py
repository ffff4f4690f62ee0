"""How the run context travels (issue 38): the router hands each segment its frozen context
once and merges each segment's outcome once; the code segment carries its rows' outcomes
from row to row itself and never calls back into the router or the run's state."""

from __future__ import annotations

import json

from testkit import make_ctx

from cowork_judge.code_methods import CODE_METHODS
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.engine.router import route
from cowork_judge.run.context import RunContext


def rows(*raw):
    return normalize_rubric(list(raw)).criteria


def _finder(ctx):
    return True, "found the deck", {"deck_path": str(ctx.paths.app_dir / "output" / "slides.pptx"), "deck_rel": "slides.pptx",
                                    "deck_kind": "pptx", "pages": 3}


def _reader(ctx):
    """Hit only when the row before it handed on its deck and artifacts."""
    seen = ctx.deck is not None and ctx.deck.rel == "slides.pptx" and ctx.artifacts.get("pages") == 3
    return seen, f"deck={ctx.deck.rel if ctx.deck else None} pages={ctx.artifacts.get('pages')}", {"read": True}


def _missing(ctx):
    return False, "nothing", {}


CODE_RUBRIC = (
    {"id": "C-FIND", "description": "a deck", "weight": 1, "judge_method": "code", "code_method_name": "finder"},
    {"id": "C-READ", "description": "reads it", "weight": 1, "judge_method": "code", "code_method_name": "reader",
     "depends_on": ["C-FIND"]},
    {"id": "C-MISS", "description": "absent", "weight": 1, "judge_method": "code", "code_method_name": "missing"},
    {"id": "C-GATED", "description": "after a miss", "weight": 1, "judge_method": "code", "code_method_name": "reader",
     "depends_on": ["C-MISS"]},
)


def _register(monkeypatch):
    monkeypatch.setitem(CODE_METHODS, "finder", _finder)
    monkeypatch.setitem(CODE_METHODS, "reader", _reader)
    monkeypatch.setitem(CODE_METHODS, "missing", _missing)


def test_the_code_segment_carries_its_rows_outcomes_itself(tmp_path, monkeypatch):
    from cowork_judge.code_methods.code_rows import CodeSegment, judge_code_rows

    _register(monkeypatch)
    ctx = make_ctx(tmp_path, {"slides.pptx": b"PK not really a deck"})
    handed = ctx.segment()
    code = judge_code_rows(rows(*CODE_RUBRIC), handed, {}, {r.id: r for r in rows(*CODE_RUBRIC)})
    assert isinstance(code, CodeSegment)
    assert list(code.verdicts) == ["C-FIND", "C-READ", "C-MISS", "C-GATED"]
    assert code.verdicts["C-READ"].hit is True and code.verdicts["C-READ"].reason == "deck=slides.pptx pages=3"
    assert code.verdicts["C-GATED"].gate == "closed" and code.verdicts["C-GATED"].judged
    assert code.deck is not None and code.deck.rel == "slides.pptx" and code.deck.kind == "pptx"
    assert dict(code.artifacts) == {"pages": 3, "read": True}
    # the handed-in context is frozen and untouched; the run's state is the router's to merge
    assert handed.deck is None and dict(handed.artifacts) == {}
    assert ctx.deck is None and ctx.artifacts == {}
    published = json.loads((ctx.paths.evidence_dir / "artifacts.json").read_text())
    assert published["deck_in_workspace"] == "output/slides.pptx" and published["pages"] == 3 and published["read"] is True


def test_the_router_builds_one_segment_context_per_handing(tmp_path, monkeypatch):
    """Four code rows and a workflow row: one context for the code segment, one for the
    model segments after it (the original built one per code row and one per segment)."""
    _register(monkeypatch)
    built = []
    segment = RunContext.segment

    def counted(self):
        built.append(self.deck)
        return segment(self)

    monkeypatch.setattr(RunContext, "segment", counted)
    ctx = make_ctx(tmp_path, {"slides.pptx": b"PK not really a deck"},
                   workflow_config={"stub": {"hits": {"W1": True}}}, env={"JUDGE_API_KEY": "sk-test-not-used"})
    crit = rows(*CODE_RUBRIC, {"id": "W1", "description": "layout", "weight": 1, "judge_method": "workflow",
                               "workflow_name": "stub", "depends_on": ["C-READ"]})
    verdicts = route(crit, ctx)
    assert len(built) == 2
    assert built[1] is not None and built[1].rel == "slides.pptx"  # the model segments see the merged deck
    assert verdicts["W1"].hit is True and verdicts["W1"].gate == "open"
    assert ctx.deck is not None and ctx.deck.rel == "slides.pptx" and ctx.artifacts == {"pages": 3, "read": True}
    audited = json.loads((ctx.paths.audit_dir / "code" / "verdicts.json").read_text())
    assert list(audited) == ["C-FIND", "C-READ", "C-MISS", "C-GATED"]
