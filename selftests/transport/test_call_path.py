"""The run's one model-call path (`transport.attempts`): one ticket owner that settles each
ticket once, a failure classified once with its ``Retry-After`` read once, one jittered
wait per failure, one HTTP client per run — and the API key only inside the transport."""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
import time
from pathlib import Path

import pytest
from testkit import SIM_KEY, make_ctx

import cowork_judge
from cowork_judge.core.retry import RetryPolicy
from cowork_judge.sim import OraclePolicy, SimServer
from cowork_judge.transport import attempts
from cowork_judge.transport.attempts import Held, ModelCalls, failure_of
from cowork_judge.transport.retrying import Tries
from cowork_judge.transport.limiter import GateClosed, Limiter
from cowork_judge.transport.stats import CallStats

PACKAGE = Path(cowork_judge.__file__).parent
MESSAGES = [{"role": "user", "content": "<rubric_rows>\n" + json.dumps([{"id": "A1", "description": "x", "type": "binary"}])
             + "\n</rubric_rows>"}]
ORACLE = OraclePolicy.from_dict({"A1": {"hit": True}})


class Reply:
    """What the SDK's status errors carry: ``response.headers``."""

    def __init__(self, headers: dict[str, str]) -> None:
        self.headers = headers


class StatusError(Exception):
    def __init__(self, status: int, headers: dict[str, str] | None = None, text: str = "error") -> None:
        super().__init__(text)
        self.status_code = status
        self.response = Reply(headers or {})


class ScriptedLimiter(Limiter):
    """The real limiter, recording how each ticket was settled."""

    def __init__(self) -> None:
        super().__init__(backoff_max_sec=20.0, rng=random.Random(1))
        self.settled: list[tuple[str, float | None, bool]] = []

    def answered(self, ticket, quota=None, *, tokens=0):
        self.settled.append(("answered", None, False))
        super().answered(ticket, quota, tokens=tokens)

    def failed(self, ticket):
        self.settled.append(("failed", None, False))
        super().failed(ticket)

    def rate_limited(self, ticket, asked_sec, *, whole_attempt=False):
        self.settled.append(("rate_limited", asked_sec, whole_attempt))
        return super().rate_limited(ticket, asked_sec, whole_attempt=whole_attempt)


# --------------------------------------------------------------------------- one constructor, one client


def _client_constructions(source: str) -> int:
    """Calls of ``AsyncOpenAI(...)`` / ``OpenAI(...)`` (bare or as ``openai.X``) in `source`."""
    import ast

    return sum(1 for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)
               and (getattr(node.func, "id", None) or getattr(node.func, "attr", None)) in ("AsyncOpenAI", "OpenAI"))


def test_async_openai_is_constructed_in_exactly_one_module():
    """The package source, read as code (a docstring naming the client does not count):
    one module constructs the model client, once."""
    makers = {str(p.relative_to(PACKAGE)): n for p in sorted(PACKAGE.rglob("*.py"))
              if (n := _client_constructions(p.read_text(encoding="utf-8")))}
    assert makers == {"transport/chat.py": 1}, makers
    assert re.search(r"AsyncOpenAI\(", (PACKAGE / "transport" / "chat.py").read_text())  # the grep agrees


def test_one_client_per_run_shared_by_workflow_and_agentic_rows(tmp_path, monkeypatch):
    """A whole run (`engine.judge.main_run`) with a workflow row that calls the model
    (answer_match, not stated in the answer) and an agentic row: both segments' requests
    reach the endpoint over ONE client, made once and closed once."""
    from cowork_judge.engine import judge
    from cowork_judge.config.judge_config import load_config
    from cowork_judge.run.paths import RunPaths
    from cowork_judge.transport import chat
    from cowork_judge.workflow.answer_match.rows import answer_row

    made, closed = [], []
    real_init, real_close = chat.Transport.__init__, chat.Transport.close

    def init(self, **kw):
        made.append(self)
        real_init(self, **kw)

    async def close(self):
        closed.append(self)
        await real_close(self)

    monkeypatch.setattr(chat.Transport, "__init__", init)
    monkeypatch.setattr(chat.Transport, "close", close)
    tests, root = tmp_path / "tests", tmp_path / "run"
    tests.mkdir()
    rubric = [answer_row("H", "120 m", weight=1), {"id": "A1", "description": "explains the fall", "weight": 1}]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rubric}))
    (tests / "task_prompt.md").write_text("How high is the tower?\n")
    (root / "app").mkdir(parents=True)
    (root / "logs" / "agent").mkdir(parents=True)
    (root / "logs" / "agent" / "final_answer.txt").write_text("The tower is tall; the ball falls a while.\n")
    oracle = OraclePolicy.from_dict({"H": {"hit": False, "level": 0}, "A1": {"hit": True}})
    with SimServer(oracle, api_key=SIM_KEY, tool_rounds=0) as sim:
        env = {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": sim.url, "JUDGE_START_JITTER": "0",
               "JUDGE_WORKFLOW_START_JITTER": "0"}
        paths = RunPaths.resolve(app_dir=root / "app", logs_dir=root / "logs", tests_dir=tests, work_dir=root / "work",
                                 alt_output_dir=tmp_path / "none")
        judge.main_run(paths, load_config(env), start=time.monotonic())
        entries = sim.log.entries()
    doc = json.loads(paths.result_json.read_text())
    rows = {r["id"]: r for r in doc["results"]}
    assert rows["H"]["judged"] and rows["A1"]["judged"], rows
    assert {e.row_ids[0] for e in entries} >= {"H", "A1"}  # the workflow's call and the block's
    assert len(made) == 1 and closed == made


def test_a_path_reopens_after_its_scope_and_nested_scopes_share_the_client():
    stats = CallStats()
    with SimServer(ORACLE, api_key=SIM_KEY, tool_rounds=0) as sim:
        calls = ModelCalls(api_key=SIM_KEY, base_url=sim.url, model="sim", stats=stats, limiter=None)
        with calls.opened():
            with calls.opened():  # a segment inside the run's scope
                asyncio.run(calls.chat(MESSAGES, timeout_sec=10))
            asyncio.run(calls.chat(MESSAGES, timeout_sec=10))  # another segment: the same client
            assert calls.clients_opened == 1
        assert repr(calls) == "ModelCalls(model='sim', open=False)"  # closed with the outermost scope
        with calls.opened():
            asyncio.run(calls.chat(MESSAGES, timeout_sec=10))
        assert calls.clients_opened == 2 and stats.calls == 3


def test_without_credentials_no_client_is_made():
    calls = ModelCalls(api_key=None, base_url="http://127.0.0.1:9/v1", model="m", stats=CallStats(), limiter=None)
    with pytest.raises(attempts.NoCredential):
        asyncio.run(calls.chat(MESSAGES, timeout_sec=1))
    assert calls.clients_opened == 0


# --------------------------------------------------------------------------- the ticket, settled once


def _held(limiter: ScriptedLimiter) -> Held:
    ticket, _ = limiter.try_start()
    assert ticket is not None
    return Held(limiter, ticket)


def test_a_ticket_is_settled_once_by_how_its_block_ended():
    lim = ScriptedLimiter()
    with _held(lim):
        pass
    with pytest.raises(StatusError), _held(lim):
        raise StatusError(429, {"retry-after-ms": "1500"})
    with pytest.raises(StatusError), _held(lim):
        raise StatusError(500)
    with pytest.raises(asyncio.CancelledError), _held(lim):
        raise asyncio.CancelledError()
    with _held(lim) as held:  # a CLI attempt settles it from the CLI's words
        held.refused(None, whole_attempt=True)
    assert lim.settled == [("answered", None, False), ("rate_limited", 1.5, False), ("failed", None, False),
                           ("failed", None, False), ("rate_limited", None, True)]
    assert lim.in_flight == 0


def test_an_error_inside_a_200_stream_settles_failed_not_refused():
    from cowork_judge.transport.chat import StreamIncomplete

    lim = ScriptedLimiter()
    with pytest.raises(StreamIncomplete), _held(lim):
        raise StreamIncomplete("stream disconnected before completion")
    assert lim.settled == [("failed", None, False)]


def test_admission_past_the_time_left_raises_gate_closed():
    lim = ScriptedLimiter()
    ticket, _ = lim.try_start()
    lim.rate_limited(ticket, 3600.0)  # a lone first refusal with an ask closes the gate
    calls = ModelCalls(api_key=None, base_url=None, model="m", stats=CallStats(), limiter=lim)
    with pytest.raises(GateClosed, match="not started"):
        asyncio.run(calls.admit(give_up_at=lim.clock() + 5, refused="held: not started"))
    assert calls.admit_blocking(threading.Event(), lim.clock() + 0.1) is None and calls.held_past(lim.clock() + 5)


# --------------------------------------------------------------------------- classified once, one wait


def test_a_failure_is_classified_and_its_ask_read_once(monkeypatch):
    counted = {"classify": 0, "retry_after": 0}
    exc = StatusError(429, {"retry-after": "2"})
    real_classify, real_after = attempts.classify, attempts.retry_after_sec

    def classify(seen, **kw):
        counted["classify"] += seen is exc  # the failure itself (not the deadline rule applied to its kind)
        return real_classify(seen, **kw)

    def retry_after(seen):
        counted["retry_after"] += seen is exc
        return real_after(seen)

    monkeypatch.setattr(attempts, "classify", classify)
    monkeypatch.setattr(attempts, "retry_after_sec", retry_after)
    lim = ScriptedLimiter()
    with pytest.raises(StatusError), _held(lim):  # the ticket's settlement reads it…
        raise exc
    tries = Tries("block-01", policy=RetryPolicy(), rng=random.Random(3), stats=CallStats(), redact=str, log=_Log())
    tries.begin()
    failed = tries.record_failure(exc, t0=time.monotonic(), deadline_passed=False)  # …and the retry loop reads the same
    assert (failed.kind, failed.asked_sec) == ("rate_limit", 2.0) and failure_of(exc).asked_sec == 2.0
    assert counted == {"classify": 1, "retry_after": 1}


def test_one_jittered_wait_per_failure_and_the_policy_decides_when_to_stop():
    class Counting(random.Random):
        draws = 0

        def uniform(self, a, b):
            Counting.draws += 1
            return super().uniform(a, b)

    stats = CallStats()
    audited: list[tuple[int, dict]] = []
    tries = Tries("workflow w call p", policy=RetryPolicy(max_tries=3, backoff_max_sec=20.0), rng=Counting(5), stats=stats,
                  redact=lambda s: s.replace("sk-secret", "****"), log=_Log(), audit=lambda n, e: audited.append((n, e)))
    waits = []
    for _ in range(3):
        tries.begin()
        failed = tries.record_failure(StatusError(429, {"retry-after": "1"}, text="sk-secret refused"), t0=time.monotonic(),
                              deadline_passed=False, label="p")
        waits.append(tries.next_wait(failed.kind, failed.asked_sec))
    assert waits[2] is None and all(1.0 <= w <= 20.0 for w in waits[:2])  # at least the ask; tries 3 of 3: give up
    assert Counting.draws == 2 and tries.backoffs == 2 and stats.by_kind == {"rate_limit": 3}
    assert [n for n, _ in audited] == [1, 2, 3] and list(audited[0][1]) == ["label", "failed", "error", "seconds"]
    assert all("sk-secret" not in e["error"] for _, e in audited)


def test_a_timeout_reads_as_deadline_once_the_deadline_passed():
    exc = asyncio.TimeoutError()
    assert failure_of(exc).kind(deadline_passed=False) == "timeout"
    assert failure_of(exc).kind(deadline_passed=True) == "deadline"


class _Log:
    def warning(self, *args):
        pass


# --------------------------------------------------------------------------- the key stays in the transport


def _reachable_strings(root: object, *, opaque: tuple[type, ...]) -> list[str]:
    """Every ``repr`` and string reachable from `root` through instance attributes
    (``__dict__``, ``__slots__``), pydantic fields, mappings and sequences. Callables,
    modules and classes are not entered; objects of `opaque` types are not entered either
    (only their repr is taken)."""
    import inspect
    import types

    seen: set[int] = set()
    out: list[str] = []
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, (str, bytes)):
            out.append(obj if isinstance(obj, str) else obj.decode("latin-1"))
            continue
        try:
            out.append(repr(obj))
        except Exception:  # noqa: BLE001 - an unrepresentable object holds nothing readable here
            pass
        if isinstance(obj, (types.ModuleType, type)) or inspect.isroutine(obj) or isinstance(obj, opaque):
            continue
        if isinstance(obj, dict) or hasattr(obj, "items") and callable(obj.items):
            try:
                for k, v in obj.items():
                    stack.extend((k, v))
            except Exception:  # noqa: BLE001
                pass
            continue
        if isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
            continue
        if hasattr(obj, "get_secret_value"):
            stack.append(obj.get_secret_value())
        stack.extend(getattr(obj, "__dict__", {}).values())
        for slot in getattr(type(obj), "__slots__", ()):
            if hasattr(obj, slot):
                stack.append(getattr(obj, slot))
    return out


def test_a_code_method_and_a_workflow_cannot_find_the_key_in_their_context(tmp_path):
    """What a code method gets (the run context) and what a workflow gets (its context,
    its caller) hold no key: not in the configuration, not in any attribute, field or repr.
    Only the transport holds it (`ModelCalls`, entered here only for its repr, after it has
    opened its client) — and the redactor, whose job is to know it."""
    import dataclasses

    from cowork_judge.safety.redact import Redactor
    from cowork_judge.workflow._contract import WorkflowContext
    from cowork_judge.workflow.runner import workflow_calls

    with SimServer(ORACLE, api_key=SIM_KEY, tool_rounds=0) as sim:
        ctx = make_ctx(tmp_path, {"report.md": "x"}, env={"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": sim.url,
                                                          "JUDGE_WORKFLOW_START_JITTER": "0"})
        calls = workflow_calls(ctx.segment())
        cancel = threading.Event()
        caller = calls.caller("w", ctx.audit.scoped("workflow-w"), cancel=cancel, budget_end=time.monotonic() + 30)
        with ctx.calls.opened():
            caller.complete(MESSAGES, label="p")  # the client is open while the contexts are walked
            wctx = WorkflowContext(name="w", settings={}, artifacts={}, evidence_dir=ctx.paths.evidence_dir,
                                   work_dir=tmp_path, delivery=ctx.delivery, deadline_at=ctx.deadline.at, cancel=cancel,
                                   transport=caller, audit=ctx.audit, redact=ctx.redactor.text, log=ctx.log, rng=ctx.rng,
                                   resplit=True, assets_dir=None)
            code_side = _reachable_strings(ctx.segment(), opaque=(ModelCalls, Redactor))
            workflow_side = _reachable_strings(wctx, opaque=(ModelCalls, Redactor))
            assert ctx.calls.clients_opened == 1
    assert ctx.config.api_key is None and ctx.calls.has_credentials
    assert dataclasses.is_dataclass(ctx)
    for name, strings in (("code method", code_side), ("workflow", workflow_side)):
        leaks = [s[:120] for s in strings if SIM_KEY in s]
        assert not leaks, f"a {name} can read the key: {leaks}"
    assert len(code_side) > 50 and any(sim.url in s for s in code_side)  # the walk did reach the configuration
