"""``cowork-judge batch <instances dir|jsonl> --out DIR``: judge many instances offline, under
one global limit on in-flight model calls, resumably, then summarize them.

Exit status: 0 every instance has a result document (some may carry an exit_code: see the
summary); 1 some instance has none (named in ``batch.json``); 2 usage errors, inputs that name
no instance or a missing/unreadable rollout, and no judge endpoint (`endpoint_problem`); 130 / 143 interrupted (everything finished so far is kept: run the
same command again to resume). 1 as well when another batch holds ``--out`` (the message
names it).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cowork_judge.commands._args import Parser, UsageError

if TYPE_CHECKING:
    from cowork_judge.batch.lock import BatchLock
    from cowork_judge.batch.runner import InstanceOutcome
    from cowork_judge.fleet.outputs import Progress

EPILOG = """\
limits: K long-lived workers (--jobs, default min(L, 8, instances to judge)) judge the instances, each one at a
time as its own `cowork-judge run` would (own environment, deadline, watchdog and temp folder; a
worker that crashes or hangs costs only its instance an error document, and is replaced), each with JUDGE_CONCURRENCY =
JUDGE_WORKFLOW_CONCURRENCY = floor(L / K), so at most K * floor(L / K) <= L model calls are in
flight at any moment (L = --max-in-flight). The judge endpoint comes from the usual environment
(JUDGE_API_KEY, JUDGE_BASE_URL, JUDGE_MODEL ...); start jitters are 0 unless set.

resume: <out>/<name>/ holds each run (logs/verifier/result.json as `run` writes it). A rerun keeps
(state "kept") an instance whose result is a valid document for the unchanged instance, judged under the same
settings (its verdict fingerprint: judge version, backend, model, endpoint, sampling settings,
rubric/prompt/instruction digests, JUDGE_GUARD off or on, JUDGE_GUARD_ROW, JUDGE_SKIP), unchanged since
the judge wrote it (its integrity digest: a hand-edited result.json or reward file is judged again) and
not cut short by a signal or the deadline; it judges the rest again (also documents with an exit_code,
unless --keep-errors) and says how many and why. A kept result whose scoring settings changed
(JUDGE_REWARD_MODE, JUDGE_PASS_*, JUDGE_UNJUDGED_NEGATIVE, JUDGE_UNGROUNDED, JUDGE_SYSTEMIC_*, JUDGE_GUARD flag/penalize,
JUDGE_METRIC_ID, JUDGE_PRICES) is re-scored from its stored verdicts with no model call, and the batch
says so: summary.json never mixes two policies (its "scoring" section states the one used).
--force judges everything again. One batch per --out: a second one refuses, naming the first
(<out>/.batch.lock; a lock left by a dead batch is taken over).

input: a folder (every */tests/rubric.json with its rollout/ beside it: a folder without rollout/ is
refused) or a JSONL list, one line per instance: a path of an instance folder, or an object with
only the keys "instance" (an instance folder) or "tests" + optional "rollout", and optional "name",
"tags" (docs/benchmarks.md). A rollout must exist and hold app/ and/or logs/agent/ (or be a Harbor
trial folder, or empty: nothing delivered); a flat folder of deliverables is refused, naming the line.
No JUDGE_API_KEY/JUDGE_BASE_URL (or half of them) is refused unless every rubric has code rows only.

names: an instance's name (a JSONL "name", else its folder's name) is a label that becomes
<out>/<name>/: one plain folder name (no '/', not '.' or '..', no leading '.', no control
character, at most 255 UTF-8 bytes), or the list is refused naming the line. The batch writes
and removes only inside --out and never through a symbolic link: a link where it would write
(<out>/<name>, its logs/ ..., .batch.lock, verdict-cache/) is refused before anything is judged.

batch API (--batch-api): a record pass writes every one-round-trip request (workflow cells, answer_match,
agentic blocks with JUDGE_MAX_TURNS=1) to <out>/batch-api/, one OpenAI batch (/v1/files + /v1/batches)
is submitted for those never submitted before (ids kept in <out>/batch-api/state.json: a killed batch
resumes its batches and submits nothing twice), polled, and the instances are judged from its answers;
multi-turn agentic blocks and re-asks go live (--batch-api-rounds N batches the latter). Tokens the batch
answered are priced as <model>@batch in JUDGE_PRICES, else at half the <model> price.

outputs: <out>/summary.json (cowork-judge summarize of the batch, --group-by passed through,
instance tags from each instance.json; every instance counted, one a stopped batch never started as
no_result), <out>/instance_tags.json (written first: each instance's tags with its "task", the JSONL
tag "task" when given, else tests-<digest of its tests/ folder>, so that summarize resamples the rollouts of
one task together), <out>/batch.json. --out must be new, empty or a
batch's own output (batch.json or .batch.lock): any other folder is refused naming what it holds, and so
is a summary.json there that no batch wrote (a batch never replaces or removes what it did not make).

example:
  cowork-judge batch tasks/physics --out runs/physics --max-in-flight 16 --group-by difficulty,topic
"""


KEPT_WORDS = {"kept": "kept (complete from an earlier run, not judged again)",
              "rescored": "kept and re-scored from its stored verdicts (no model call)"}
"""The progress line of an instance this batch did not judge (`batch.runner.KEPT_STATES`)."""


def main(argv: list[str]) -> int:
    """Judge the instances named in `argv`; prints the summary path; returns the exit status."""
    try:
        args = _parser().parse_args(argv)
        if args.draws < 0 or args.seed < 0:
            raise UsageError("--draws and --seed must be ≥ 0")
    except UsageError as exc:
        print(f"cowork-judge batch: error: {exc}", file=sys.stderr)
        return 2
    # a SIGTERM before the runner takes the signals (the lock wait, re-scoring stored results)
    # ends the batch as one during the run does, not by the default action's silent death (-15)
    signal.signal(signal.SIGTERM, _stop_before_the_run)
    from cowork_judge.batch.instances import BatchInputError, batch_cache_env, child_env, discover_instances, plan_limits
    from cowork_judge.batch.pool import WorkerStartError
    from cowork_judge.batch.runner import BatchRunner, run_with_signals
    from cowork_judge.fleet.outputs import Progress

    def fail(message: str, status: int = 2) -> int:
        print(f"cowork-judge batch: {message}", file=sys.stderr)
        return status

    try:
        instances = discover_instances(args.instances)
        limits = plan_limits(args.max_in_flight, args.jobs, len(instances))
    except (BatchInputError, ValueError) as exc:
        return fail(str(exc))
    from cowork_judge._util.procs import judge_environment

    environ = batch_cache_env(judge_environment(), args.out)  # JUDGE_VERDICT_CACHE=on: the batch's own cache
    problem = _out_problem(args, instances, environ)
    if problem is not None:
        return fail(problem)
    from cowork_judge.config.judge_config import load_config

    deadline = load_config(environ).config.deadline_sec
    progress = Progress(len(instances), "batch")
    lock = _lock(args.out)
    if isinstance(lock, str):
        return fail(lock, 1)
    try:
        _list_instances(args.out, instances)
        runner = BatchRunner(args.out, limits, child_env(environ, limits, Path(args.out)), deadline_sec=deadline, keep_errors=args.keep_errors,
                             force=args.force, on_outcome=_OutcomeLines(progress, len(instances)), lock_fd=lock.fd, jobs=args.jobs)
        status = batch_api_step(args, runner, instances)
        if status is not None:
            return status
        try:
            report, received = run_with_signals(runner, instances)
        except BatchInputError as exc:  # a link planted under --out while the batch ran (batch.outdir)
            return fail(str(exc))
        except WorkerStartError as exc:  # a broken installation: nothing can be judged (what finished is kept)
            return fail(str(exc), 1)
        progress.done()
        print(resume_line(report.rejudged, len(instances)), file=sys.stderr)
        if report.rescored:
            print(rescore_line(report.rescored), file=sys.stderr)
        for why, n in sorted(report.rejudge_notes.items()):
            print(f"batch: {n} judged again, not re-scored: {why}", file=sys.stderr)
        return _finish(args, instances, report, received, runner.limits, fail)
    finally:
        lock.release()


def _list_instances(out: Path, instances: list[Any]) -> None:
    """Write ``<out>/instance_tags.json`` as soon as the lock is held, before a ``--batch-api`` round that may
    poll for hours: `summarize <out>` meanwhile counts every instance as no_result and says the batch is
    running (trial 8 F4). A failure is left to `BatchRunner.run`, which writes it again and says so."""
    from cowork_judge.batch.runner import write_instance_tags

    try:
        write_instance_tags(out, instances)
    except OSError:
        pass


def _parser() -> Parser:
    """The command line of ``cowork-judge batch``."""
    p = Parser(prog="cowork-judge batch", description="Judge many instances offline under one global in-flight limit, "
               "resumably, then summarize them.", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("instances", type=Path, help="a folder of instances (*/tests/rubric.json) or a JSONL list")
    p.add_argument("--out", type=Path, required=True, help="output folder (one sub-folder per instance)")
    p.add_argument("--max-in-flight", type=int, default=8, help="model calls in flight at most, over the whole batch (default 8)")
    p.add_argument("--jobs", type=int, help="worker processes, runs at once (default min(L, 8, instances to judge))")
    p.add_argument("--keep-errors", action="store_true", help="on a rerun, keep results that carry an exit_code")
    p.add_argument("--force", action="store_true", help="judge every instance again")
    add_batch_api_arguments(p)
    p.add_argument("--group-by", action="append", default=[], metavar="KEY", help="passed to the summary (repeatable)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed of the summary (default 0)")
    p.add_argument("--draws", type=int, default=1000, help="bootstrap draws of the summary (default 1000)")
    return p


def add_batch_api_arguments(p: argparse.ArgumentParser) -> None:
    """``--batch-api``, ``--batch-api-failed``, ``--batch-api-poll`` (``batch`` and ``calibrate --out``)."""
    p.add_argument("--batch-api", action="store_true", help="send every one-round-trip request through the provider's "
                   "Batch API at the batch price (docs/performance/batch-api.md); a killed batch resumes its submitted "
                   "batches and submits no request twice")
    p.add_argument("--batch-api-failed", choices=("live", "unjudged"), default="live",
                   help="a request the Batch API failed or let expire: ask it live (default) or leave its rows unjudged")
    p.add_argument("--batch-api-rounds", type=int, default=1, metavar="N",
                   help="record passes and batches at most: a later round batches the requests that depend on earlier "
                   "answers (a workflow's second stage, a re-ask); each round costs one more pass and batch window (default 1)")
    p.add_argument("--batch-api-poll", type=float, default=1.0, metavar="SECONDS",
                   help="first wait between polls of a batch (grows x1.5 up to 60 s; default 1)")


def batch_api_step(args: argparse.Namespace, runner: Any, instances: list[Any]) -> int | None:
    """``--batch-api``: record, submit and poll (`batch.api_rounds`) before the runner's pass;
    None to go on (also without ``--batch-api``), else the exit status (stopped by a signal, or
    the provider refused)."""
    if not args.batch_api:
        return None
    from cowork_judge.batch.api_rounds import BatchAPIFailure, Polling, prepare
    from cowork_judge.batch.runner import run_with_signals
    from cowork_judge.core.exit_status import EXIT_STATUS

    if not args.batch_api_poll > 0 or args.batch_api_rounds < 1:
        print("cowork-judge batch: error: --batch-api-poll must be > 0 and --batch-api-rounds ≥ 1", file=sys.stderr)
        return 2
    try:
        prepared = prepare(runner, instances, run_with_signals, failed=args.batch_api_failed,
                           polling=Polling(first_wait_sec=args.batch_api_poll), rounds=args.batch_api_rounds)
    except BatchAPIFailure as exc:
        print(f"cowork-judge batch: batch API: {exc} (what was submitted is kept in {args.out}/batch-api/state.json: "
              "run the same command again to resume)", file=sys.stderr)
        return 1
    if prepared.stopped:
        print("batch: interrupted in the batch API's record pass; nothing was submitted: run the same command again",
              file=sys.stderr)
        return EXIT_STATUS["SIGTERM"]
    return None


def _out_problem(args: argparse.Namespace, instances: list[Any], environ: dict[str, str]) -> str | None:
    """Why the batch cannot start writing into --out (None: it can, and the folder exists now):
    the instances folder itself, inside an instance, a setting or the endpoint refused, a file
    in the way, a folder that cannot be made or holds what a batch must not overwrite."""
    from cowork_judge.batch.instances import BatchInputError

    if args.instances.is_dir() and args.out.resolve() == args.instances.resolve():
        return "--out must not be the instances folder"
    from cowork_judge.batch.outdir import output_inside_input

    inside = output_inside_input(args.out, instances)
    if inside is not None:
        return inside
    problem = settings_problem(environ, "cowork-judge batch") or endpoint_problem(environ, instances)
    if problem is not None:
        return problem
    if os.path.lexists(args.out) and not args.out.is_dir():  # issue 39: not a raw [Errno 17]
        return (f"--out {args.out} exists and is not a folder: give a folder (it is made when missing) for the "
                "instances' results and summary.json")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return (f"cannot create --out {args.out}: {exc.strerror or exc}"
                + (f" ({exc.filename})" if exc.filename and str(exc.filename) != str(args.out) else ""))
    from cowork_judge.batch.outdir import check_output_folder

    try:
        check_output_folder(args.out, (inst.name for inst in instances))
    except BatchInputError as exc:
        return str(exc)
    return None


def _lock(out: Path) -> BatchLock | str:
    """The batch's lock on `out` (`batch.lock`), or why it cannot be taken; a stale lock taken
    over is said on stderr."""
    from cowork_judge.batch.lock import BatchLock, BatchLocked

    lock = BatchLock(out)
    try:
        lock.acquire()
    except BatchLocked as exc:
        return str(exc)
    except OSError as exc:
        return f"cannot lock {out}: {exc}"
    if lock.took_over:
        print(f"batch: took over the stale lock of pid {lock.took_over.get('pid')} (no longer running)", file=sys.stderr)
    return lock


class _OutcomeLines:
    """The batch's `on_outcome`: each instance's outcome ticks the progress bar, or, without
    one (not a terminal), is one line on stderr: ``batch: [n/total] name: state (seconds)``."""

    def __init__(self, progress: Progress, total: int) -> None:
        self.progress, self.total, self.done = progress, total, 0

    def __call__(self, outcome: InstanceOutcome) -> None:
        self.done += 1
        self.progress.tick()
        if not self.progress.enabled:
            state = outcome.state
            print(f"batch: [{self.done}/{self.total}] {outcome.name}: "
                  + (KEPT_WORDS.get(state) or f"{state} ({outcome.seconds:.1f} s)"), file=sys.stderr)


def _stop_before_the_run(signum: int, _frame: object) -> None:
    """SIGTERM before judging starts: exit 143 (128 + SIGTERM) through `SystemExit`, so that
    every ``finally`` runs (the lock is released, nothing is half written: writes are atomic).

    Raises:
        SystemExit: always.
    """
    print("cowork-judge batch: stopped (SIGTERM) before judging began; run it again to resume", file=sys.stderr)
    raise SystemExit(128 + signum)


def settings_problem(environ: dict[str, str], prog: str) -> str | None:
    """Print the config's load warnings (`config.judge_config.LoadedConfig.warnings`: invalid values that
    fell back to their default, capped values, unknown JUDGE_* names) on stderr as
    ``<prog>: warning: …``, and say why the batch must not start: a setting that changes the
    verdicts or the reward (`config.effects.invalid_reward_settings`) holds an invalid value, which
    would otherwise judge — or re-score stored verdicts — under its default, silently.

    Returns:
        The refusal (one line), or None when the batch may start.
    """
    from cowork_judge.config.judge_config import load_config
    from cowork_judge.config.effects import invalid_reward_settings

    loaded = load_config(environ)
    for line in loaded.warnings:
        print(f"{prog}: warning: {line}", file=sys.stderr)
    invalid = invalid_reward_settings(loaded.sources)
    if not invalid:
        return None
    return (f"refused: {', '.join(invalid)} {'has' if len(invalid) == 1 else 'have'} an invalid value (above) and "
            f"{'it changes' if len(invalid) == 1 else 'they change'} the verdicts or the reward: a batch does not judge "
            "or re-score under a default nobody chose; fix or unset it")


def endpoint_problem(environ: dict[str, str], instances: list[Any]) -> str | None:
    """Why a batch over `instances` cannot reach a judge endpoint under `environ`, or None when it can.

    Half a credential pair (`_endpoint.caller_endpoint`, as ``try`` and ``demo`` refuse it) is always
    a problem; no credentials at all is one unless no instance needs a model: JUDGE_SKIP is set,
    or every instance's rubric loads and has only code rows (``judge_method: code``). A panel judge
    with its own key counts as a credential, as in the run. Otherwise every run would end in
    ``judge:no_credential`` and the batch would look finished.
    """
    from cowork_judge.commands._endpoint import HalfCredentials, caller_endpoint
    from cowork_judge.core.rubric import load_rubric
    from cowork_judge.config.judge_config import load_config

    try:
        if caller_endpoint(environ):
            return None
    except HalfCredentials as exc:
        return exc.message("every instance would end in judge:no_credential", simulator=False)
    config = load_config(environ).config
    if config.skip or any(j.api_key is not None for j in config.panel):
        return None
    needs_model = []
    for inst in instances:
        try:
            rows = load_rubric(inst.tests_dir / "rubric.json").criteria
        except Exception:  # noqa: BLE001 - a rubric the run refuses: counted as needing the model, to be safe
            rows = None
        if rows is None or any(c.judge_method != "code" for c in rows):
            needs_model.append(inst.name)
    if not needs_model:
        return None
    shown = ", ".join(needs_model[:3]) + (" …" if len(needs_model) > 3 else "")
    return (f"no judge endpoint: JUDGE_API_KEY and JUDGE_BASE_URL (or OPENAI_*) are not set, and {len(needs_model)} "
            f"instance(s) have rows that need the model ({shown}): every one would end in judge:no_credential. "
            "Set both to judge with your endpoint (`cowork-judge sim` starts a local simulator)")


def resume_line(rejudged: dict[str, int], total: int) -> str:
    """One line saying how many instances were judged and why (``batch.instances.result_state``)."""
    labels = {"missing": "new", "stale": "instance changed", "settings_changed": "judge settings changed (fingerprint)",
              "tampered": "result no longer matches what the judge wrote (integrity digest)",
              "interrupted": "cut by a signal or the deadline", "error": "exit_code", "invalid": "no valid result",
              "forced": "--force"}
    judged = sum(rejudged.values())
    parts = ", ".join(f"{n} {labels.get(k, k)}" for k, n in sorted(rejudged.items()))
    return f"batch: {judged} of {total} instance(s) to judge" + (f" ({parts})" if parts else "") + f", {total - judged} kept"


def rescore_line(rescored: dict[str, int]) -> str:
    """One line saying which kept results were re-scored from their stored verdicts, and why."""
    parts = "; ".join(f"{change}: {n}" for change, n in sorted(rescored.items()))
    return f"batch: re-scored from stored verdicts, no model call ({parts})"


def _finish(args: argparse.Namespace, instances: list[Any], report: Any, received: int | None, limits: Any,
            fail: Callable[[str, int], int]) -> int:
    from cowork_judge.core.exit_status import EXIT_STATUS
    from cowork_judge.batch.runner import KEPT_STATES, write_outputs

    group_by = tuple(dict.fromkeys(k.strip() for g in args.group_by for k in g.split(",") if k.strip()))
    try:
        summary, record = write_outputs(args.out, instances, report, limits, group_by=group_by, seed=args.seed, draws=args.draws)
    except OSError as exc:
        return fail(f"cannot write the batch outputs: {exc}", 1)
    print(str(summary))
    states = ", ".join(f"{k} {v}" for k, v in record["states"].items())
    judged = sum(1 for o in report.outcomes if o.state not in KEPT_STATES)
    split = (f"; {limits.jobs} run(s) x {limits.per_run} call(s) in flight (limit {limits.max_in_flight})" if judged
             else "")  # nothing judged: no run was started, so no split to report
    print(f"batch: {len(instances)} instance(s): {states}{split}; {report.seconds:.1f} s", file=sys.stderr)
    if record["not_counted"]:  # issue 39: folders of an earlier list are never counted silently (nor silently left out)
        stray = record["not_counted"]
        print(f"batch: {len(stray)} instance folder(s) in {args.out} from an earlier batch are not in this list and not "
              f"counted in summary.json: {', '.join(stray[:5])}" + (" …" if len(stray) > 5 else "")
              + f" (batch.json not_counted; `cowork-judge summarize {args.out}` would count them)", file=sys.stderr)
    if report.stopped:
        print("batch: interrupted; what finished is kept: run the same command again to resume", file=sys.stderr)
        return EXIT_STATUS["SIGINT"] if received == signal.SIGINT else EXIT_STATUS["SIGTERM"]
    return 1 if record["not_complete"] else 0
