"""``cowork-judge batch --batch-api``: the instances' one-round-trip requests through the
provider's Batch API, at the batch price.

Three steps before the batch's ordinary run (`batch.runner.BatchRunner.run`), all in
``<out>/batch-api`` (`transport.batch_jobs` describes the files):

1. **record pass** — the instances still to judge run once, in ``<out>/batch-api/record-pass``,
   under ``record`` (`transport.batch_api.Stage`): each request that is one round trip is
   written with its ``custom_id`` instead of being sent; no request leaves the machine; the
   documents of this pass are scratch;
2. **submit** — the requests not submitted before go to ``/v1/files`` + ``/v1/batches`` as one
   batch, its id kept in ``state.json`` (a rerun after a kill submits no ``custom_id`` twice);
3. **poll** — every batch not yet downloaded is polled with backoff until it ends, its answers
   downloaded.

With ``--batch-api-rounds N`` the record pass and the batch repeat up to N times: a later
record pass reads the answers the earlier batches hold and records only what no batch holds yet
(requests that depend on earlier answers: a workflow's second stage, a re-ask), and the rounds
end early when it records nothing.

Then the ordinary run judges the instances under ``answer``: the batch's answers are read
where the live run would have called the model, through the same reply parser; what the batch
failed or let expire goes live (``--batch-api-failed live``, the default) or stays unjudged
(``unjudged``). The engine runs twice per instance (the record pass and the answer pass): the
CPU cost of a second pass (evidence and renders included) buys the batch discount on every
model call.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cowork_judge._util.fsutil import link_tree
from cowork_judge.transport.batch_api import STAGE_ENV, FailedPolicy, Stage
from cowork_judge.transport.batch_jobs import BatchAPIError, load_state, recorded_requests, submit, wait_for_batches

FOLDER_NAME = "batch-api"
"""``<out>/batch-api``: the batch API's requests, state and results."""


class BatchAPIFailure(Exception):
    """The provider refused a submission or a poll, or the state file is unreadable (the
    message says which; what was submitted is kept in ``state.json``)."""


@dataclass(frozen=True)
class Polling:
    """How the batches are polled: the first wait and the longest, seconds (waits grow ×1.5)."""

    first_wait_sec: float = 1.0
    max_wait_sec: float = 60.0


@dataclass
class Prepared:
    """What the batch API steps did.

    Attributes:
        stage: the ``answer`` stage the ordinary run must be given (`STAGE_ENV`), None when
            nothing is left to judge.
        recorded: requests the record pass wrote.
        submitted: of them, newly submitted now (the rest were submitted by an earlier run).
        stopped: a signal stopped the record pass (nothing was submitted).
    """

    stage: Stage | None
    recorded: int = 0
    submitted: int = 0
    stopped: bool = False


def prepare(runner: Any, instances: Sequence[Any], run_batch: Callable[[Any, Sequence[Any]], tuple[Any, int | None]], *,
            failed: FailedPolicy = "live", polling: Polling = Polling(), rounds: int = 1,
            say: Callable[[str], None] | None = None) -> Prepared:
    """Record, submit and poll (module docstring) for the instances (`batch.instances.BatchInstance`)
    `runner` (a `batch.runner.BatchRunner`) would judge; then `runner.env` carries the ``answer``
    stage. `rounds` (``--batch-api-rounds``): record passes and batches at most; a later round
    records only the requests no batch holds yet (those that depend on earlier answers) and ends
    the rounds when there is none. `run_batch` is `batch.runner.run_with_signals` (passed in: the command line imports
    the runner, this module stays off its import chain).

    Raises:
        BatchAPIFailure: the state file is unreadable, or the provider refused a submission or
            a poll (what was submitted is kept).
    """
    out = say or (lambda line: print(line, file=sys.stderr))
    folder = (runner.out / FOLDER_NAME).absolute()
    try:
        state = load_state(folder)
    except BatchAPIError as exc:
        raise BatchAPIFailure(str(exc)) from None
    todo, _ = runner.todo(instances)
    if not todo:
        return Prepared(stage=None)
    recorded = submitted = 0
    for round_no in range(1, max(1, rounds) + 1):
        lines = _record_pass(runner, folder, [inst for inst, _ in todo], run_batch, out, round_no)
        if lines is None:
            return Prepared(stage=None, stopped=True)
        before = len(state["batches"])
        try:
            asyncio.run(_submit_and_wait(runner.config, folder, state, lines, polling, out))
        except BatchAPIError as exc:
            raise BatchAPIFailure(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - the provider's refusal (openai.APIError) or its connection
            raise BatchAPIFailure(f"{type(exc).__name__}: {exc}") from None
        new = sum(len(b["custom_ids"]) for b in state["batches"][before:])
        recorded, submitted = recorded + len(lines), submitted + new
        out(f"batch API: round {round_no}: {len(lines)} request(s) recorded, {new} submitted now, "
            f"{len(lines) - new} submitted by an earlier run")
        if not lines:
            break  # every one-round-trip request has its batch answer: no further round
    stage = Stage("answer", folder, failed)
    runner.env[STAGE_ENV] = stage.to_env()
    return Prepared(stage=stage, recorded=recorded, submitted=submitted)


def _record_pass(runner: Any, folder: Path, instances: list[Any], run_batch: Callable[[Any, Sequence[Any]], tuple[Any, int | None]],
                 say: Callable[[str], None], round_no: int) -> dict[str, str] | None:
    """One record pass over `instances` (scratch folder ``record-pass``); the requests it
    recorded that no batch answered yet (custom_id → input line), None when a signal stopped it.

    The pass reads the batch's verdict cache but never writes it: a verdict a later round
    judges from an earlier batch's answer would otherwise be served from the cache in the answer
    pass, and the result would count no call and no cost for it. It writes a hard-linked
    scratch copy (``record-cache``; the cache replaces files, so the originals stay as they were)."""
    for scratch in ("requests", "record-pass", "record-cache"):
        shutil.rmtree(folder / scratch, ignore_errors=True)
    env = {**runner.env, STAGE_ENV: Stage("record", folder).to_env()}
    cache = runner.config.verdict_cache_dir  # None: off (`0`, `off`, …)
    if cache:  # read the batch's verdict cache, write a scratch copy (`_util.fsutil.link_tree`: hard links)
        (folder / "record-cache").mkdir(parents=True)
        if Path(cache).is_dir():
            link_tree(Path(cache), folder / "record-cache")
        env["JUDGE_VERDICT_CACHE"] = str(folder / "record-cache")
    record = type(runner)(folder / "record-pass", runner.limits, env, deadline_sec=runner.deadline_sec, force=True,
                          python=runner.python, lock_fd=runner.lock_fd, jobs=runner.jobs, worker_argv=runner.worker_argv)
    (folder / "record-pass").mkdir(parents=True, exist_ok=True)
    say(f"batch API: record pass {round_no} over {len(instances)} instance(s) (no request is sent)")
    report, _ = run_batch(record, instances)
    return None if report.stopped else recorded_requests(folder)


async def _submit_and_wait(config: Any, folder: Path, state: dict[str, Any], lines: dict[str, str], polling: Polling,
                           say: Callable[[str], None]) -> None:
    from cowork_judge.transport.chat import Transport
    from cowork_judge.transport.stats import CallStats

    transport = Transport(api_key=config.api_key.get_secret_value() if config.api_key else "", base_url=config.base_url or "",
                          model=config.model, stats=CallStats(), headers=config.request_headers)
    try:
        batch_id = await submit(transport.client, folder, state, lines)
        if batch_id is not None:
            say(f"batch API: submitted {batch_id}")
        await wait_for_batches(transport.client, folder, state, first_wait_sec=polling.first_wait_sec,
                               max_wait_sec=polling.max_wait_sec, say=say)
    finally:
        await transport.close()


__all__ = ["FOLDER_NAME", "BatchAPIFailure", "Polling", "Prepared", "prepare"]
