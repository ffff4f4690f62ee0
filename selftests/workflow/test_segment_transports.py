"""The workflow segment makes its transports where it uses them (issue 38): one
`WorkflowCalls` per judge for the whole segment, made on first use; a workflow with no
time left is answered before any transport is made; and one scope holds every call path
of the run open (`segment.judges.calls_opened`)."""

from __future__ import annotations

import time
from contextlib import contextmanager

from testkit import make_ctx

from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.workflow import runner

STUB_ROWS = [{"id": "W1", "description": "layout", "weight": 1, "judge_method": "workflow", "workflow_name": "stub"},
             {"id": "W2", "description": "colours", "weight": 1, "judge_method": "workflow", "workflow_name": "stub"}]


def _counted(monkeypatch):
    made = []
    real = runner.WorkflowCalls

    def counting(**kwargs):
        made.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(runner, "WorkflowCalls", counting)
    return made


def _ctx(tmp_path, **env):
    return make_ctx(tmp_path, env={"JUDGE_API_KEY": "sk-test-not-used", **env},
                    workflow_config={"stub": {"hits": {"W1": True, "W2": False}}})


def test_a_workflow_with_no_time_left_is_answered_before_any_transport_is_made(tmp_path, monkeypatch):
    made = _counted(monkeypatch)
    rows = normalize_rubric(STUB_ROWS).criteria
    out = runner.judge_workflow_rows(rows, _ctx(tmp_path).segment(), {}, {r.id: r for r in rows}, segment_end=time.monotonic() - 1)
    assert [(v.judged, v.error_kind, v.reason) for v in out.values()] == [
        (False, "timeout", "no time left for the workflow segment")] * 2
    assert made == []  # the original made the run's transport up front, used or not


def test_a_sampled_run_makes_one_transport_per_judge_and_none_for_the_run(tmp_path, monkeypatch):
    made = _counted(monkeypatch)
    rows = normalize_rubric(STUB_ROWS).criteria
    ctx = _ctx(tmp_path, JUDGE_SAMPLES="3")
    seg = ctx.segment()
    assert seg.sampling is not None and len(seg.sampling.judges) == 1
    out = runner.judge_workflow_rows(rows, seg, {}, {r.id: r for r in rows}, segment_end=time.monotonic() + 60)
    assert out["W1"].hit is True and out["W2"].hit is False
    assert len(made) == 1  # the judge's; the original also made the run's, which a sampled workflow never calls


def test_an_unsampled_run_makes_the_runs_transport_once(tmp_path, monkeypatch):
    made = _counted(monkeypatch)
    rows = normalize_rubric(STUB_ROWS).criteria
    out = runner.judge_workflow_rows(rows, _ctx(tmp_path).segment(), {}, {r.id: r for r in rows}, segment_end=time.monotonic() + 60)
    assert out["W1"].hit is True and out["W2"].hit is False
    assert len(made) == 1 and made[0]["judge_model"] is None


class _Path:
    def __init__(self, name, log):
        self.model, self.name, self.log = name, name, log

    @contextmanager
    def opened(self):
        self.log.append(("open", self.name))
        yield self
        self.log.append(("close", self.name))


def test_one_scope_holds_the_runs_path_and_every_judges_path_open():
    from cowork_judge.segment.judges import Judge, SamplingPlan, calls_opened

    log: list[tuple[str, str]] = []
    run, other = _Path("run", log), _Path("other", log)
    judges = tuple(Judge(name=n, model=n, base_url=None, weight=1.0, calls=p, path=p, slug=n)
                   for n, p in (("a", run), ("b", other), ("c", other)))
    plan = SamplingPlan(k=3, adaptive=False, vote="majority", judges=judges, record=None)
    with calls_opened(run, plan):
        assert log == [("open", "run"), ("open", "run"), ("open", "other")]  # each path once per holder
    assert sorted(log[3:]) == [("close", "other"), ("close", "run"), ("close", "run")]
    with calls_opened(run, None):
        pass
    assert log[-2:] == [("open", "run"), ("close", "run")]
