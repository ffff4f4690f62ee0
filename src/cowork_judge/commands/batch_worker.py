"""``python -m cowork_judge.commands.batch_worker <reply fd>``: the process `batch` starts K of
(`batch.pool`), not a command of its own. It judges the instances its batch sends, one at a
time, with the engine entry ``cowork-judge run`` calls (`engine.judge.main_run`, watchdog
armed), each under its own environment (`batch.worker`).

On Linux the batch forks its workers instead (`batch.pool`): it calls `preload` once, so the
engine and the model client are imported in one process rather than in each worker, and
each forked worker runs `serve_forked`."""

from __future__ import annotations

import sys
from typing import BinaryIO

from cowork_judge.batch.worker import InstanceSpec, serve


def judge(spec: InstanceSpec, start: float) -> int:
    """Judge one instance as ``cowork-judge run --app-dir … --logs-dir … --tests-dir …
    --alt-output-dir …`` does under ``spec.env``, its JUDGE_DEADLINE counted from `start`;
    returns the run's exit status (`core.exit_status.exit_status`)."""
    from cowork_judge.core.exit_status import exit_status
    from cowork_judge.engine import signals
    from cowork_judge.engine.judge import main_run
    from cowork_judge.config.judge_config import load_config
    from cowork_judge.run.paths import RunPaths

    loaded = load_config(spec.env)
    paths = RunPaths.from_config(loaded.config, app_dir=spec.app_dir, logs_dir=spec.logs_dir, tests_dir=spec.tests_dir,
                                 alt_output_dir=spec.alt_output_dir)
    try:
        doc = main_run(paths, loaded, start=start, hard_deadline=True)
    finally:
        while signals.pending() is not None:  # a signal the run did not take over ends the worker (batch.worker)
            pass
    return exit_status(doc.status if doc is not None else None)


def preload() -> None:
    """Import what judging an instance needs (the engine, its router and signal handling, the
    configuration, the model client, the guard's scanner and the documents a run writes), in the process the
    workers are forked from (`batch.pool`), so that no worker imports them again."""
    from cowork_judge.config import judge_config as _config  # noqa: F401
    from cowork_judge.engine import judge as _engine  # noqa: F401
    from cowork_judge.engine import router as _router  # noqa: F401
    from cowork_judge.engine import signals as _signals  # noqa: F401
    from cowork_judge.engine.guarding import load_scanner
    from cowork_judge.run import ctrf as _ctrf  # noqa: F401 - imported by a run's first documents
    from cowork_judge.run import paths as _paths  # noqa: F401

    load_scanner()
    from cowork_judge import workflow
    from cowork_judge.workflow import caller as _caller  # noqa: F401
    from cowork_judge.workflow import runner as _workflow_runner  # noqa: F401

    for name in workflow.installed():  # each rubric loads its workflows by name on its first instance
        try:
            workflow.load(name)
        except workflow.WorkflowUnavailable:
            pass  # the run says so itself, as it would have
    _load_model_client()


def _load_model_client() -> None:
    """What the client imports on its first request, imported now (`transport.chat.load_client_modules`)."""
    import asyncio  # noqa: F401
    import concurrent.futures  # noqa: F401

    from cowork_judge.transport.chat import load_client_modules

    load_client_modules()


def serve_forked(reply_fd: int, stdin: BinaryIO) -> int:
    """A forked worker's life (`batch.pool`): serve the batch on `reply_fd`, reading the
    instances from `stdin`; returns the worker's exit status (`batch.worker.serve`)."""
    from cowork_judge.engine import signals

    while signals.pending() is not None:  # a signal the batch recorded before the fork is the batch's, not this worker's
        pass
    return serve(judge, reply_fd, on_busy_signal=signals.record, stdin=stdin)


def main(argv: list[str]) -> int:
    """Serve the batch on the reply descriptor ``argv[0]``; returns the worker's exit status."""
    from cowork_judge.engine import judge as _engine  # noqa: F401 - imported once, before the first instance
    from cowork_judge.engine import router as _router  # noqa: F401
    from cowork_judge.engine import signals

    return serve(judge, int(argv[0]), on_busy_signal=signals.record)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
