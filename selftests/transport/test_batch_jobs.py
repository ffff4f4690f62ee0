"""Issue 37, Batch API, the pieces: the simulator's ``/v1/files`` + ``/v1/batches`` through the
real ``openai`` client, the submission that never sends a ``custom_id`` twice (a kill between
creating the batch and writing its id included), the normalised results, the ids, the stages
and the batch price."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import openai
import pytest

from cowork_judge.core.cost import ModelUsage, Price, judge_cost, price_of
from cowork_judge.safety import spotlight
from cowork_judge.sim import SimServer
from cowork_judge.sim.batch_api import instance_digest as sim_instance_digest
from cowork_judge.transport import batch_jobs
from cowork_judge.transport.batch_api import STAGE_ENV, BatchedTransport, Stage, batched, custom_id, instance_digest, read_results
from cowork_judge.transport.chat import plain_completion


def _line(cid: str, text: str) -> str:
    rows = json.dumps([{"id": "r1", "description": text}])
    body = {"model": "sim-judge", "messages": [{"role": "user", "content": f"Judge <rubric_rows>{rows}</rubric_rows>"}]}
    return json.dumps({"custom_id": cid, "method": "POST", "url": "/v1/chat/completions", "body": body})


def _client(server: SimServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(api_key="sk-test", base_url=server.url, max_retries=0)  # test side: not the judge's client


def test_submit_poll_download_and_never_twice(tmp_path: Path) -> None:
    lines = {f"cj-{instance_digest('a')}-{i:040d}-0": _line(f"cj-{instance_digest('a')}-{i:040d}-0", f"row {i}")
             for i in range(6)}

    async def go(server: SimServer) -> dict:
        client = _client(server)
        state = batch_jobs.load_state(tmp_path)
        first = await batch_jobs.submit(client, tmp_path, state, lines)
        assert first is not None and batch_jobs.load_state(tmp_path)["batches"][0]["id"] == first
        assert await batch_jobs.submit(client, tmp_path, state, lines) is None  # everything is submitted already
        await batch_jobs.wait_for_batches(client, tmp_path, state, first_wait_sec=0.05)
        await client.close()
        return state

    with SimServer(batch_delay=0.2, batch_fail=0.3, seed=1) as server:
        state = asyncio.run(go(server))
        assert [cid for _, cid in server.batch_api.submitted] == sorted(lines)
    assert state["batches"][0]["downloaded"] and state["batches"][0]["status"] == "completed"
    results = read_results(tmp_path, "a")
    assert set(results) == set(lines)
    failed = [r for r in results.values() if not r["ok"]]
    assert failed and all(r["why"].startswith("HTTP 500") for r in failed)
    ok = next(r for r in results.values() if r["ok"])
    assert json.loads(plain_completion(ok["body"]).content)["verdicts"][0]["id"] == "r1"
    assert read_results(tmp_path, "b") == {}  # another instance's results are not read


def test_a_batch_created_by_a_killed_process_is_adopted_not_created_again(tmp_path: Path) -> None:
    """The process died after ``batches.create`` and before it wrote the id: the state holds
    only ``pending``; the next run finds the batch by its metadata token and submits nothing."""
    lines = {f"cj-{instance_digest('a')}-{i:040d}-0": _line(f"cj-{instance_digest('a')}-{i:040d}-0", f"row {i}")
             for i in range(3)}

    async def go(server: SimServer) -> None:
        client = _client(server)
        state = batch_jobs.load_state(tmp_path)
        real_adopt = batch_jobs._adopt

        def die(*_a, **_k):
            raise KeyboardInterrupt  # stands for the kill: the id is never written

        batch_jobs._adopt = die
        try:
            with pytest.raises(KeyboardInterrupt):
                await batch_jobs.submit(client, tmp_path, state, lines)
        finally:
            batch_jobs._adopt = real_adopt
        state = batch_jobs.load_state(tmp_path)
        assert state["pending"] and not state["batches"]
        assert await batch_jobs.submit(client, tmp_path, state, lines) is None
        assert len(state["batches"]) == 1 and state["pending"] is None
        await client.close()

    with SimServer() as server:
        asyncio.run(go(server))
        assert len(server.batch_api.submitted) == 3 and len(server.batch_api.batches) == 1


def test_expired_requests_and_a_broken_state_file(tmp_path: Path) -> None:
    cid = f"cj-{instance_digest('a')}-{0:040d}-0"

    async def go(server: SimServer) -> None:
        client = _client(server)
        state = batch_jobs.load_state(tmp_path)
        await batch_jobs.submit(client, tmp_path, state, {cid: _line(cid, "x")})
        await batch_jobs.wait_for_batches(client, tmp_path, state, first_wait_sec=0.01)
        await client.close()

    with SimServer(batch_expire=1.0) as server:
        asyncio.run(go(server))
    assert read_results(tmp_path, "a")[cid]["why"].startswith("batch_expired")
    (tmp_path / "state.json").write_text("{not json")
    with pytest.raises(batch_jobs.BatchAPIError, match="unreadable"):
        batch_jobs.load_state(tmp_path)


def test_sim_refuses_bad_input_files() -> None:
    with SimServer() as server:
        client = openai.OpenAI(api_key="sk-test", base_url=server.url, max_retries=0)
        dup = (_line("x", "a") + "\n" + _line("x", "b")).encode()
        f = client.files.create(file=("in.jsonl", dup), purpose="batch")
        with pytest.raises(openai.BadRequestError, match="duplicate custom_id"):
            client.batches.create(input_file_id=f.id, endpoint="/v1/chat/completions", completion_window="24h")
        with pytest.raises(openai.NotFoundError):
            client.batches.retrieve("batch_nope")
        client.close()


def test_custom_ids_are_stable_across_processes_and_name_the_instance() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": spotlight.wrap("agent text")}]}
    first = custom_id("inst-7", body, 0)
    spotlight.renew()  # the answer pass is another process: another boundary
    again = {"model": "m", "messages": [{"role": "user", "content": spotlight.wrap("agent text")}]}
    assert again != body and custom_id("inst-7", again, 0) == first
    assert custom_id("inst-7", body, 1) != first and len(first) <= 64
    assert first.split("-")[1] == sim_instance_digest("inst-7")  # what the simulator's oracle reads
    assert custom_id("inst-8", body, 0) != first


def test_stages_parse_and_wrap_only_with_an_instance(tmp_path: Path) -> None:
    for stage in (Stage("record", tmp_path), Stage("answer", tmp_path, "unjudged"), Stage("answer", tmp_path, "live")):
        assert Stage.from_env(stage.to_env()) == stage
    for bad in ("", "record", "answer:maybe:/x", "send:/x"):
        assert Stage.from_env(bad) is None
    live = object()
    assert batched(live, plain_completion, {}) is live
    assert batched(live, plain_completion, {STAGE_ENV: Stage("record", tmp_path).to_env()}) is live  # no instance
    assert isinstance(batched(type("T", (), {"model": "m", "stats": None, "temperature": None})(), plain_completion,
                              {STAGE_ENV: Stage("record", tmp_path).to_env(), "JUDGE_INSTANCE_ID": "a"}), BatchedTransport)


def test_the_batch_price_is_its_own_or_half_the_live_one() -> None:
    prices = {"m": Price(input=2.0, cached_input=1.0, output=8.0)}
    assert price_of("m@batch", prices) == Price(input=1.0, cached_input=0.5, output=4.0)
    assert price_of("m@batch", {**prices, "m@batch": Price(input=0.3, output=0.3)}) == Price(input=0.3, output=0.3)
    assert price_of("n@batch", prices) is None
    usage = {"m@batch": ModelUsage(calls=1, input_tokens=1_000_000, output_tokens=1_000_000)}
    assert judge_cost(usage, prices).usd == pytest.approx(5.0)
    assert judge_cost(usage, {}).unpriced == ["m@batch"]
