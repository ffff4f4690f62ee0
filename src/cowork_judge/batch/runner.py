"""Running a batch: K long-lived workers (`batch.pool`) over the instances still to judge.

Each instance gets its own folder ``<out>/<name>/`` (``logs/agent`` copied from the instance,
``logs/verifier`` written by its run, ``batch-run.log`` its console output,
``batch-instance.json`` its fingerprint) and is judged by one worker, which judges one
instance at a time with the engine entry of ``cowork-judge run`` under the instance's own
environment (`batch.worker`), so the documents are the ones ``run`` writes. A worker judges
up to `MAX_INSTANCES_PER_WORKER` instances, then a fresh one takes its place.

Failures stay with their instance. A worker that ends while judging (a crash, ``os._exit``,
a signal from outside) loses that instance only: unless its run left a result (the watchdog
writes one at JUDGE_DEADLINE before it ends the process), the batch writes the instance's
error document (`BatchRunner.write_lost_document`: reward 0, ``judge:scorer_error``) and
starts another worker. A run still going `KILL_MARGIN_SEC` after its JUDGE_DEADLINE (its
watchdog could not end it) has its worker killed and gets the watchdog's kind of document
(every row unjudged ``deadline``, ``judge:timeout``). A rerun judges both again.

A stop (SIGTERM/SIGINT to the batch, `BatchRunner.stop`) sends nothing new and forwards
SIGTERM to every worker: a busy one writes the documents of its cut run and exits; after
`STOP_GRACE_SEC` the rest is killed. If the batch itself dies (a crash, SIGKILL), Linux sends
each worker SIGTERM (``PR_SET_PDEATHSIG``, `batch.pool.DIE_WITH_PARENT`), with the same
effect, so no orphan keeps writing into the output and a rerun resumes exactly.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cowork_judge._util.fsutil import atomic_write
from cowork_judge.batch.instances import (
    RECORD_NAME,
    RUN_LOG_NAME,
    BatchInstance,
    Limits,
    fingerprint,
    instance_tag_map,
    lay_out_agent_files,
    plan_limits,
    result_state,
)
from cowork_judge.batch.outdir import (BATCH_RECORD, SUMMARY_DIGESTS, SUMMARY_NAME, ForeignOutput,
                                       earlier_instance_folders, file_sha256, foreign_summary, instance_folder,
                                       set_aside_foreign)
from cowork_judge.batch.pool import WorkerPool
from cowork_judge.batch.worker import InstanceSpec
from cowork_judge.core.layout import SET_ASIDE_DIR, VerifierLayout

KEPT_STATES = ("kept", "rescored")
"""Outcomes of instances not judged in this batch: their earlier result was kept (re-scored or not)."""
POLL_SEC = 0.05
STOP_GRACE_SEC = 20.0
"""Seconds a stopped run has to write its documents before it is killed."""
KILL_MARGIN_SEC = 120.0
"""A run alive this long past its JUDGE_DEADLINE has its worker killed (its watchdog should have ended it)."""
MAX_INSTANCES_PER_WORKER = 200
"""Instances one worker judges before a fresh one replaces it (bounds whatever a run leaves
behind in a process: a thread that never returned, memory). A start costs a fork where the
batch forks its workers (`batch.pool.START_FORK`), else ~1-2 s of CPU to import the judge."""


@dataclass
class InstanceOutcome:
    """How one instance ended in this batch: ``kept`` (complete from an earlier run and kept as
    it is), ``rescored`` (kept and re-scored from its stored verdicts), or the state of
    its result after the run (`batch.instances.result_state`) — ``complete``, ``error`` (an
    exit_code), ``invalid``/``missing`` (the run left no valid document), ``killed``."""

    name: str
    state: str
    seconds: float = 0.0
    returncode: int | None = None


@dataclass
class BatchReport:
    """What a batch did; ``stopped`` when it was interrupted."""

    outcomes: list[InstanceOutcome] = field(default_factory=list)
    seconds: float = 0.0
    stopped: bool = False
    rejudged: dict[str, int] = field(default_factory=dict)
    """Why instances were judged (again) in this batch: state before → count (`batch.instances.result_state`)."""
    rescored: dict[str, int] = field(default_factory=dict)
    """Kept results re-scored from their stored verdicts (no model call): what changed → instances."""
    rejudge_notes: dict[str, int] = field(default_factory=dict)
    """Results judged again because their stored verdicts cannot be re-scored under a new setting: why → instances."""

    def count(self, *states: str) -> int:
        """Instances that ended in one of `states`."""
        return sum(1 for o in self.outcomes if o.state in states)


@dataclass
class _Running:
    inst: BatchInstance
    fingerprint: str
    started: float


class BatchRunner:
    """Judges instances with at most ``limits.jobs`` runs at a time (see the module docstring).

    Args:
        out: the batch output folder.
        limits: the split of the in-flight limit (`batch.instances.plan_limits`).
        env: the runs' environment (`batch.instances.child_env`).
        deadline_sec: JUDGE_DEADLINE of the runs (for the kill backstop).
        keep_errors: keep finished documents that carry an ``exit_code`` on a rerun.
        force: judge every instance again.
        on_outcome: called after each instance (progress).
        python: the interpreter of the workers.
        lock_fd: the output folder's lock (`batch.lock.BatchLock`), passed to every
            worker so that the folder stays locked while one still runs.
        jobs: the ``--jobs`` asked for (None: the default). `run` plans `limits` again over the
            instances left to judge (`batch.instances.plan_limits`), as a fresh batch of those
            would: a resumed batch with 2 left runs 2 workers, not min(L, 8, all instances).
        worker_argv: the worker command after the interpreter (`batch.pool.WorkerPool`; tests).
        kill_margin_sec: seconds past JUDGE_DEADLINE after which a run's worker is killed.
        max_instances_per_worker: instances one worker judges before it is replaced.
    """

    def __init__(self, out: Path, limits: Limits, env: Mapping[str, str], *, deadline_sec: float = 1800.0,
                 keep_errors: bool = False, force: bool = False, on_outcome: Callable[[InstanceOutcome], None] | None = None,
                 python: str = sys.executable, lock_fd: int | None = None, jobs: int | None = None,
                 worker_argv: Sequence[str] | None = None, kill_margin_sec: float = KILL_MARGIN_SEC,
                 max_instances_per_worker: int = MAX_INSTANCES_PER_WORKER) -> None:
        self.out = out
        self.limits = limits
        self.jobs = jobs
        self.env = dict(env)
        self.deadline_sec = deadline_sec
        self.keep_errors = keep_errors
        self.force = force
        self.on_outcome = on_outcome or (lambda outcome: None)
        self.python = python
        self.lock_fd = lock_fd
        self.worker_argv = worker_argv
        self.kill_margin_sec = kill_margin_sec
        self.max_instances_per_worker = max(1, max_instances_per_worker)
        self._digests: dict[str, str] = {}
        self._stop = threading.Event()
        self._config: Any = None
        self._loaded: Any = None
        self.resume_reasons: dict[str, int] = {}
        self.rescored: dict[str, int] = {}
        self.rejudge_notes: dict[str, int] = {}

    def stop(self) -> None:
        """Ask the batch to stop (safe from a signal handler)."""
        self._stop.set()

    def settings_digest(self, inst: BatchInstance) -> str:
        """The verdict fingerprint digest a run of `inst` under its environment (`instance_env`)
        records (`run.fingerprint.verdict_fingerprint`); computed once per instance and batch
        (it reads the instance's tests files: they are not expected to change while it runs)."""
        from cowork_judge.run.fingerprint import verdict_fingerprint

        if inst.name not in self._digests:
            self._digests[inst.name] = verdict_fingerprint(self.instance_config(inst), inst.tests_dir)["digest"]
        return self._digests[inst.name]

    def instance_config(self, inst: BatchInstance) -> Any:
        """The configuration `inst` is judged under (`instance_env` read by `run.config.load_config`):
        the batch's `config` unless its environment differs by more than JUDGE_INSTANCE_ID."""
        from cowork_judge.config.judge_config import load_config

        env = self.instance_env(inst)
        if {k: v for k, v in env.items() if k != "JUDGE_INSTANCE_ID"} == self.env:
            return self.config
        return load_config(env).config

    @property
    def config(self) -> Any:
        """The runs' configuration (`config.judge_config.JudgeConfig` of `env`), read once."""
        from cowork_judge.config.judge_config import load_config

        if self._loaded is None:
            self._loaded = load_config(self.env)
            self._config = self._loaded.config
        return self._config

    def restate(self, inst: BatchInstance) -> tuple[str, list[str]]:
        """Re-score the kept result of `inst` under this batch's settings of kind ``score``
        (`fleet.rescore.restate`: scoring policy, guard policy, metric id, prices), from its
        stored verdicts with no model call, and rewrite its documents (sealed again) when
        they change. Returns ``("complete", [])`` (nothing changed), ``("rescored",
        changes)`` or ``("settings_changed", [why])`` (the stored verdicts cannot give it:
        judge again)."""
        import hashlib

        from cowork_judge.fleet.documents import parse_document, read_regular
        from cowork_judge.fleet.rescore import restate
        from cowork_judge.run.outputs import write_result
        from cowork_judge.run.paths import RunPaths

        layout = VerifierLayout.under(self.out / inst.name)
        config = self.config
        try:
            data = read_regular(layout.result_json)
            doc, _, _ = parse_document(data)
            if doc is None:  # result_state read it a moment ago
                return "invalid", []
            new = restate(doc, source_sha256=hashlib.sha256(data).hexdigest(), policy=config.scoring, guard=config.guard,
                          metric_id=config.metric_id, prices=config.prices)
            if new.rejudge is not None:
                return "settings_changed", [new.rejudge]
            if not new.changes:
                return "complete", []
            paths = RunPaths.from_config(config, logs_dir=layout.logs_dir, app_dir=self.out / inst.name / "app",
                                         tests_dir=inst.tests_dir, work_dir=self.out / inst.name)  # nothing runs: no temp folder
            write_result(paths, new.doc, self._loaded.redactor)
        except (OSError, ValueError):  # a stored row no fold accepts, a folder that cannot be written: judge it again
            return "invalid", []
        return "rescored", new.changes

    def todo(self, instances: Sequence[BatchInstance]) -> tuple[list[tuple[BatchInstance, str]], list[InstanceOutcome]]:
        """(instances to judge with their fingerprints, outcomes of those already complete).

        A complete result is re-scored when a setting of kind ``score`` changed (`restate`;
        outcome ``rescored``). Also fills `resume_reasons`: state → instances judged again
        for it (``missing``, ``stale``, ``tampered``, ``settings_changed``, ``interrupted``,
        ``error``, ``invalid``), and `rescored`: change → instances re-scored for it."""
        todo, done = [], []
        self.resume_reasons = {}
        self.rescored = {}
        self.rejudge_notes = {}
        for inst in instances:
            fp = fingerprint(inst)
            state: str = "forced" if self.force else result_state(self.out / inst.name, fp, keep_errors=self.keep_errors,
                                                             expected_settings=self.settings_digest(inst))
            if state == "complete":
                state, changes = self.restate(inst)
                for change in changes:  # what was re-scored, or why the stored verdicts could not be
                    notes = self.rescored if state == "rescored" else self.rejudge_notes
                    notes[change] = notes.get(change, 0) + 1
            if state in ("complete", "rescored"):
                done.append(InstanceOutcome(inst.name, "kept" if state == "complete" else "rescored"))
            else:
                self.resume_reasons[state] = self.resume_reasons.get(state, 0) + 1
                todo.append((inst, fp))
        return todo, done

    def run(self, instances: Sequence[BatchInstance]) -> BatchReport:
        """Judge what is not complete yet; returns when every instance ended or the batch was stopped.

        Raises:
            WorkerStartError: a worker could not start (the batch stops; what finished is kept).
        """
        t0 = time.monotonic()
        try:  # trial 7 F8: `summarize <out>` of the running batch accounts for every instance
            write_instance_tags(self.out, instances)
        except OSError as exc:
            print(f"batch: cannot write {self.out / 'instance_tags.json'} ({exc}); it is written again at the end",
                  file=sys.stderr)
        todo, done = self.todo(instances)
        if todo:  # issue 39: the split of a resumed batch is that of a fresh batch of what is left
            self.limits = plan_limits(self.limits.max_in_flight, self.jobs, len(todo))
            self.env["JUDGE_CONCURRENCY"] = self.env["JUDGE_WORKFLOW_CONCURRENCY"] = str(self.limits.per_run)
        report = BatchReport(outcomes=list(done), rejudged=dict(self.resume_reasons), rescored=dict(self.rescored),
                             rejudge_notes=dict(self.rejudge_notes))
        for outcome in done:
            self.on_outcome(outcome)
        if not todo:
            report.seconds = time.monotonic() - t0
            return report
        pool = WorkerPool(self.env, python=self.python, lock_fd=self.lock_fd, worker_argv=self.worker_argv)
        try:
            for _ in range(min(self.limits.jobs, len(todo))):
                pool.spawn()
            while (todo or pool.busy()) and not self._stop.is_set():
                for worker in pool.idle():
                    if not todo or self._stop.is_set():
                        break
                    if worker.judged >= self.max_instances_per_worker:
                        pool.retire(worker)  # a fresh one takes its place when it has ended
                        continue
                    inst, fp = todo.pop(0)
                    spec = self._prepare(inst, fp)
                    if not pool.assign(worker, spec, _Running(inst, fp, time.monotonic())):
                        todo.insert(0, (inst, fp))  # the worker is gone: poll reports it, another takes the instance
                replies, ended = pool.poll(POLL_SEC)
                for worker, reply in replies:
                    report.outcomes.append(self._finish(worker.current, reply.status))
                    worker.current = None
                for worker in ended:
                    if worker.current is not None:
                        report.outcomes.append(self._lost(worker.current, worker.proc.returncode))
                for worker in pool.busy():
                    if time.monotonic() - worker.assigned_at > self.deadline_sec + self.kill_margin_sec:
                        current = worker.current
                        pool.kill(worker)  # its watchdog did not end it: wedged past any cooperation
                        report.outcomes.append(self._lost(current, worker.proc.returncode, hung=True))
                wanted = min(self.limits.jobs, len(todo) + len(pool.busy()))
                for _ in range(wanted - len(pool.workers)):
                    pool.spawn()
        finally:
            if pool.busy():
                report.stopped = True
                for worker, killed in pool.stop(STOP_GRACE_SEC, POLL_SEC):
                    report.outcomes.append(self._finish(worker.current, worker.proc.returncode, killed=killed))
            pool.close()
        report.stopped = report.stopped or self._stop.is_set()
        report.seconds = time.monotonic() - t0
        return report

    # ------------------------------------------------------------------ one instance

    def _prepare(self, inst: BatchInstance, fp: str) -> InstanceSpec:
        """Lay out ``<out>/<name>/`` for a fresh run of `inst` and return what its worker needs."""
        folder = instance_folder(self.out, inst.name)  # never through a link (batch.outdir)
        layout = VerifierLayout.under(folder)
        logs = layout.logs_dir
        if moved := set_aside_foreign(folder):  # not the judge's: kept, never removed with logs/
            print(f"batch: {inst.name}: moved {', '.join(moved)} (not written by the judge) out of logs/ to "
                  f"{folder / SET_ASIDE_DIR} before judging it again", file=sys.stderr)
        shutil.rmtree(logs, ignore_errors=True)  # a rerun starts clean: any result found later is this run's
        layout.agent_dir.mkdir(parents=True)
        if inst.agent_dir is not None:
            lay_out_agent_files(inst.agent_dir, layout.agent_dir)
        app = inst.app_dir
        if app is None:
            app = folder / "app"
            app.mkdir(exist_ok=True)
        record = {"name": inst.name, "fingerprint": fp, "tests_dir": str(inst.tests_dir),
                  "app_dir": str(inst.app_dir) if inst.app_dir else None,
                  "agent_dir": str(inst.agent_dir) if inst.agent_dir else None, "tags": dict(inst.tags)}
        # not fsynced (a few ms each, in the loop that hands out every instance): after a power
        # failure a lost or empty record reads as "stale" and the instance is judged again
        atomic_write(folder / RECORD_NAME, json.dumps(record, indent=2, ensure_ascii=False) + "\n", durable=False)
        return InstanceSpec(name=inst.name, app_dir=str(Path(app).absolute()), logs_dir=str(logs.absolute()),
                            tests_dir=str(Path(inst.tests_dir).absolute()),
                            alt_output_dir=str((folder / "alt-output").absolute()), log=str(folder / RUN_LOG_NAME),
                            env=self.instance_env(inst))

    def instance_env(self, inst: BatchInstance) -> dict[str, str]:
        """The environment `inst` is judged under: the runs' (`env`) with JUDGE_INSTANCE_ID = its name."""
        return dict(self.env, JUDGE_INSTANCE_ID=inst.name)

    def _finish(self, r: _Running, returncode: int | None, *, killed: bool = False) -> InstanceOutcome:
        state: str = result_state(self.out / r.inst.name, r.fingerprint, keep_errors=False,
                                  expected_settings=self.settings_digest(r.inst))
        if (killed or returncode == -signal.SIGKILL) and state not in ("complete", "error"):
            state = "killed"
        outcome = InstanceOutcome(r.inst.name, state, time.monotonic() - r.started, returncode)
        self.on_outcome(outcome)
        return outcome

    def _lost(self, r: _Running, returncode: int | None, *, hung: bool = False) -> InstanceOutcome:
        """The worker judging `r` ended without answering (a crash, ``os._exit``, a signal) or was
        killed `kill_margin_sec` past JUDGE_DEADLINE (`hung`). Unless it left a result (its
        watchdog writes one before it ends the process), write the instance's error document
        (`lost_document`), so that the instance has a documented reward and a rerun judges it again."""
        state = result_state(self.out / r.inst.name, r.fingerprint, keep_errors=False,
                             expected_settings=self.settings_digest(r.inst))
        if state in ("missing", "invalid"):
            how = f"exit status {returncode}" if returncode is None or returncode >= 0 else \
                f"signal {signal.Signals(-returncode).name}" if -returncode in signal.valid_signals() else f"status {returncode}"
            if hung:
                reason = (f"the judge was still running {self.kill_margin_sec:g} s after JUDGE_DEADLINE and did not end "
                          "itself: the batch killed its worker process")
            else:
                reason = f"the batch worker judging this instance ended ({how}) before the run wrote its documents"
            try:
                self.write_lost_document(r.inst, reason, hung=hung)
            except (OSError, ValueError) as exc:  # nothing written: the instance stays not complete
                print(f"batch: {r.inst.name}: cannot write the error document ({exc})", file=sys.stderr)
        return self._finish(r, returncode)

    def write_lost_document(self, inst: BatchInstance, reason: str, *, hung: bool = False) -> None:
        """Write the result documents of an instance whose worker was lost (sealed, with the
        verdict fingerprint of its settings, as the run writes them): as the watchdog's for a
        hung run (`hung`: every row unjudged ``deadline``, ``judge:timeout``), else as the run's
        own internal-error document (no rows, ``judge:scorer_error``). Reward 0, never a verdict.

        Raises:
            OSError: the documents cannot be written.
        """
        from cowork_judge.core.fold import RunFacts, RunFailure, all_unjudged, fold
        from cowork_judge.core.rubric import RubricError, load_rubric
        from cowork_judge.config.judge_config import load_config
        from cowork_judge.run.fingerprint import verdict_fingerprint
        from cowork_judge.run.outputs import write_result
        from cowork_judge.run.paths import RunPaths

        loaded = load_config(self.instance_env(inst))
        config = loaded.config
        criteria: Sequence[Any] = ()
        if hung:
            try:
                criteria = load_rubric(inst.tests_dir / "rubric.json").criteria
            except (RubricError, OSError, ValueError):
                criteria = ()
        failure = RunFailure(exit_code="judge:timeout" if hung else "judge:scorer_error", exit_reason=reason)
        facts = RunFacts(identity=config.identity(), failure=failure, exit_note=reason, warnings=(reason,),
                         fingerprint=verdict_fingerprint(config, inst.tests_dir), run_id=uuid.uuid4().hex)
        doc = fold(criteria, all_unjudged(criteria, "deadline", reason), config.scoring, facts)
        layout = VerifierLayout.under(self.out / inst.name)
        paths = RunPaths.from_config(config, logs_dir=layout.logs_dir, app_dir=self.out / inst.name / "app",
                                     tests_dir=inst.tests_dir, work_dir=self.out / inst.name)  # no scratch folder: nothing runs
        layout.verifier_dir.mkdir(parents=True, exist_ok=True)
        write_result(paths, doc, loaded.redactor)


def write_outputs(out: Path, instances: Sequence[BatchInstance], report: BatchReport, limits: Limits, *,
                  group_by: Sequence[str] = (), seed: int = 0, draws: int = 1000) -> tuple[Path, dict[str, Any]]:
    """Write ``batch.json`` (the batch's own record; ``not_counted`` names instance folders of
    an earlier list found in `out`, `batch.outdir.earlier_instance_folders`; ``summary_sha256``
    the digest of the summary written next, `batch.outdir.own_summary_digests`),
    ``instance_tags.json`` and ``summary.json`` (the fleet summary of this batch's instances,
    `fleet.summarize`: one input per instance of the list, an instance without a result document
    — never started by an interrupted batch, or left none — a ``no_result``) into `out`, each
    replaced atomically. Returns (summary path, the batch record).

    Raises:
        ForeignOutput: ``summary.json`` is not one a batch wrote (`batch.outdir.foreign_summary`);
            nothing is written.
        OSError: an output cannot be written.
    """
    from cowork_judge.fleet.outputs import canonical_json, write_file

    if (problem := foreign_summary(out)) is not None:  # checked before judging too; a summarize may have run since
        raise ForeignOutput(problem)
    tags = instance_tag_map(instances)
    reached = {o.name for o in report.outcomes}
    summary = canonical_json(_summary(out, instances, reached, tags, group_by=group_by, seed=seed, draws=draws))
    states: dict[str, int] = {}
    for o in report.outcomes:
        states[o.state] = states.get(o.state, 0) + 1
    not_started = sorted(inst.name for inst in instances if inst.name not in reached)
    if not_started:  # trial 7 F2: the states add up to the instances
        states["not_started"] = len(not_started)
    judged = [o for o in report.outcomes if o.state not in KEPT_STATES]
    summary_path = out / SUMMARY_NAME
    earlier = [file_sha256(summary_path)] if summary_path.is_file() else []  # the batch's own (foreign_summary)
    record = {
        "schema": "cowork-judge/batch/v1",
        "instances": len(instances),
        "states": dict(sorted(states.items())),
        "stopped": report.stopped,
        "limits": {"max_in_flight": limits.max_in_flight, "jobs": limits.jobs, "per_run": limits.per_run},
        "seconds": round(report.seconds, 3),
        "judged_per_second": round(len(judged) / report.seconds, 4) if report.seconds > 0 and judged else None,
        "run_seconds": {"mean": round(sum(o.seconds for o in judged) / len(judged), 3) if judged else None,
                        "max": round(max((o.seconds for o in judged), default=0.0), 3)},
        "judged_because": dict(sorted(report.rejudged.items())),
        "rescored_because": dict(sorted(report.rescored.items())),
        "with_exit_code": sorted(o.name for o in report.outcomes if o.state == "error"),
        "not_counted": earlier_instance_folders(out, (inst.name for inst in instances)),
        "not_complete": sorted([o.name for o in report.outcomes if o.state not in ("complete", *KEPT_STATES, "error")]
                               + not_started),
        "not_started": not_started,
        SUMMARY_DIGESTS: list(dict.fromkeys([hashlib.sha256(summary).hexdigest(), *earlier])),
    }
    write_file(out / BATCH_RECORD, canonical_json(record), force=True)  # first: it names the summary written next
    write_instance_tags(out, instances)
    write_file(summary_path, summary, force=True)
    return summary_path, record


def write_instance_tags(out: Path, instances: Sequence[BatchInstance]) -> None:
    """Write ``<out>/instance_tags.json`` (name → tags of every instance of the list, each with its
    task: `batch.instances.instance_tag_map`); a batch writes it before judging too, so that
    ``summarize <out>`` of a running batch accounts for every instance (trial 7 F8).

    Raises:
        OSError: it cannot be written.
    """
    from cowork_judge.fleet.outputs import canonical_json, write_file

    write_file(out / "instance_tags.json", canonical_json(instance_tag_map(instances)), force=True)


def _summary(out: Path, instances: Sequence[BatchInstance], reached: set[str], tags: dict[str, dict[str, Any]], *,
             group_by: Sequence[str], seed: int, draws: int) -> dict[str, Any]:
    """The summary of the batch's instances: each instance's ``result.json``, or a ``no_result``
    input when the batch did not reach it (`NOT_STARTED`) or its run left none, so the classes
    add up to the instances, as ``summarize <out>`` counts them (trial 7 F2)."""
    import os

    from cowork_judge.fleet.documents import EARLIER_RESULT, NO_RESULT, NOT_STARTED, InputFile, read_items
    from cowork_judge.fleet.summarize import Summarizer, SummaryOptions

    files = []
    for inst in instances:
        result = VerifierLayout.under(out / inst.name).result_json
        there = os.path.lexists(result)
        missing = None
        if inst.name not in reached:
            missing = NOT_STARTED + (EARLIER_RESULT if there else "")
        elif not there:
            missing = NO_RESULT.format(name=result.name)
        files.append(InputFile(path=result, name=str(result), jsonl=False, missing=missing))
    summarizer = Summarizer(SummaryOptions(group_by=tuple(group_by), seed=seed, draws=draws, instance_tags=tags))
    for item in read_items(files, on_file=summarizer.add_file):
        summarizer.add(item)
    return summarizer.result()


def run_with_signals(runner: BatchRunner, instances: Sequence[BatchInstance]) -> tuple[BatchReport, int | None]:
    """`runner.run` with SIGTERM / SIGINT turned into `BatchRunner.stop` (main thread only);
    returns the report and the first signal received (None: none)."""
    received: list[int] = []

    def on_signal(signum: int, _frame: object) -> None:
        received.append(signum)
        runner.stop()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        report = runner.run(instances)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    return report, received[0] if received else None
