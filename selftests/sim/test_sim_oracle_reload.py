"""Trial 22 P-5: ``cowork-judge sim --oracle FILE`` read the file once at start, so the author's loop (edit the
oracle, run ``try`` again) was answered from the old file with nothing said. The file is re-read when it changes
(the console says so); a file that no longer reads gets HTTP 400 naming it on every model request until fixed, never
the old verdicts; under concurrent requests each answer comes whole from one oracle. The simulator over HTTP (the
CLI in a child process, a real ``openai`` client), and a real ``cowork-judge run`` before and after an edit."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import threading
from pathlib import Path

import openai
import pytest
from testkit import REPO, clean_env

from cowork_judge.sim import SimServer
from cowork_judge.sim.oracle_file import OracleFile

LINE_RE = re.compile(r"^cowork-judge sim listening on (http://127\.0\.0\.1:\d+/v1)$")
HIT = {"A1": {"hit": True, "reason": "first"}, "N1": {"hit": False, "reason": "first"}}
MISS = {"A1": {"hit": False, "reason": "second"}, "N1": {"hit": True, "reason": "third"}}  # same size as HIT


def _write(path: Path, doc: object, *, bump: int = 0) -> None:
    """Write `doc` (a str as it is) and move the mtime `bump` seconds on: an edit within one mtime tick, same size."""
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    if bump:
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + bump * 10**9))


def _hits(c: openai.OpenAI, messages) -> dict[str, tuple[bool, str]]:
    resp = c.chat.completions.create(model="m", messages=messages())
    return {v["id"]: (v["hit"], v["reason"]) for v in json.loads(resp.choices[0].message.content)["verdicts"]}


class _Sim:
    """``python -m cowork_judge sim --oracle FILE`` in a child process; `err()` reads what it said so far."""

    def __init__(self, oracle: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "cowork_judge", "sim", "--oracle", str(oracle)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ready, _, _ = select.select([self.proc.stdout], [], [], 20)
        assert ready, "simulator printed nothing"
        match = LINE_RE.match(self.proc.stdout.readline().strip())
        assert match
        self.url = match.group(1)
        os.set_blocking(self.proc.stderr.fileno(), False)

    def err(self) -> str:
        return self.proc.stderr.read() or ""

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        for pipe in (self.proc.stdout, self.proc.stderr):
            pipe.close()


@pytest.fixture
def sim(tmp_path):
    oracle = tmp_path / "oracle.json"
    _write(oracle, HIT)
    server = _Sim(oracle)
    yield server, oracle
    server.stop()


def test_an_edited_oracle_answers_the_next_request(sim, client, messages):
    server, oracle = sim
    with client(server.url) as c:
        assert _hits(c, messages) == {"A1": (True, "first"), "N1": (False, "first"), "A2": (False, "not in oracle")}
        _write(oracle, MISS, bump=1)  # the trial's edit: the same size
        assert _hits(c, messages)["A1"] == (False, "second") and _hits(c, messages)["N1"] == (True, "third")
    said = server.err()
    assert f"cowork-judge sim: oracle file {oracle} changed: re-read, 2 entries" in said, said
    assert said.count("changed: re-read") == 1  # once per change, not per request


def test_a_broken_oracle_is_refused_with_400_until_fixed_never_the_old_verdicts(sim, client, messages):
    server, oracle = sim
    with client(server.url) as c:
        assert _hits(c, messages)["A1"] == (True, "first")
        _write(oracle, '{"A1": {"hit": false,}', bump=1)  # saved half-edited
        for _ in range(2):
            with pytest.raises(openai.BadRequestError) as caught:
                _hits(c, messages)
            assert f"oracle file {oracle}: invalid JSON at line 1" in str(caught.value)
            assert "re-reads it on the next request" in str(caught.value)
        _write(oracle, {"A1": {"hit": True, "level": 2}}, bump=2)  # JSON, but a bad entry
        with pytest.raises(openai.BadRequestError, match="'level' must be a number in"):
            _hits(c, messages)
        oracle.unlink()
        with pytest.raises(openai.BadRequestError, match="cannot read"):
            _hits(c, messages)
        _write(oracle, MISS)
        assert _hits(c, messages)["A1"] == (False, "second")
    said = server.err()
    assert said.count("model requests get HTTP 400 until it reads again") == 3, said  # once per change
    assert "changed: re-read" in said


def test_concurrent_requests_each_get_one_whole_oracle(tmp_path, client, messages):
    oracle = tmp_path / "oracle.json"
    all_hit = {"A1": {"hit": True}, "A2": {"hit": True}, "N1": {"hit": True}}
    no_hit = {"A1": {"hit": False}, "A2": {"hit": False}, "N1": {"hit": False}}
    _write(oracle, all_hit)
    policy = OracleFile(oracle)
    answers: list[set[bool]] = []
    stop = threading.Event()

    def ask(url: str) -> None:
        with client(url) as c:
            while not stop.is_set():
                resp = c.chat.completions.create(model="m", messages=messages())
                answers.append({v["hit"] for v in json.loads(resp.choices[0].message.content)["verdicts"]})

    with SimServer(policy, tool_rounds=0) as server:
        threads = [threading.Thread(target=ask, args=(server.url,)) for _ in range(4)]
        for t in threads:
            t.start()
        for i in range(40):  # atomic replaces, as editors save
            tmp = tmp_path / "next.json"
            _write(tmp, no_hit if i % 2 == 0 else all_hit)
            os.replace(tmp, oracle)
            stop.wait(0.01)
        stop.set()
        for t in threads:
            t.join(timeout=10)
        assert server.errors == []
    assert answers and all(len(a) == 1 for a in answers)  # never rows from two oracles in one answer
    assert policy.reads > 2


def test_a_run_after_an_edit_is_judged_by_the_edited_oracle(sim, tmp_path):
    server, oracle = sim
    app, tests = tmp_path / "app", tmp_path / "tests"
    (app / "output").mkdir(parents=True)
    (app / "output" / "report.md").write_text("# Revenue\nQuarterly revenue growth was 5%.\n")
    tests.mkdir()
    rows = [{"id": "A1", "description": "The report states quarterly revenue growth.", "weight": 1}]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    env = clean_env(PYTHONPATH=str(REPO / "src"), PYTHONDONTWRITEBYTECODE="1", JUDGE_START_JITTER="0",
                    JUDGE_EVIDENCE="0", JUDGE_API_KEY="sk-sim-rehearsal", JUDGE_BASE_URL=server.url)
    rewards = []
    for edit in (None, {"A1": {"hit": False, "reason": "edited"}}):
        if edit is not None:
            _write(oracle, edit, bump=1)
        logs = tmp_path / f"logs{len(rewards)}"
        subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(app), "--logs-dir", str(logs),
                        "--tests-dir", str(tests)], env=env, capture_output=True, text=True, timeout=300)
        rewards.append(float((logs / "verifier" / "reward.txt").read_text()))
    assert rewards == [1.0, 0.0]
