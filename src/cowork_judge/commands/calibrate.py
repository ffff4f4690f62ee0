"""``cowork-judge calibrate <instances> --labels <oracle files>``: agreement of the judge's
verdicts with human labels, and its effect on rewards, with bootstrap intervals.

Exit status: 0 report written; 1 the report exists (without ``--force``) or cannot be
written, another batch holds ``--out``, or nothing can be calibrated (no instance has a
judged row with a label: every one lacks a result or labels, delivered nothing, or has
labels naming no row — the message counts each); 2 usage errors, unreadable inputs or labels.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cowork_judge._util.jsontext import load_json_file
from cowork_judge.commands._args import Parser, UsageError
from cowork_judge.core.layout import VerifierLayout

if TYPE_CHECKING:
    from cowork_judge.batch.instances import BatchInstance, Limits
    from cowork_judge.core.result import ResultDocument
    from cowork_judge.fleet.calibrate import InstanceCalibration

EPILOG = """\
verdicts: --results DIR reads <DIR>/<name>/logs/verifier/result.json (a `cowork-judge batch` output);
a result judged on another instance (its rows ask other questions than tests/rubric.json, or, with the
rollouts given, <DIR>/<name>/batch-instance.json records another fingerprint) is left out with a warning;
--out DIR judges the instances first, exactly as `cowork-judge batch --out DIR` would (resumable,
same --max-in-flight / --jobs limits), then reads them.

labels (the simulator's oracle format, {row id: {"hit": bool, "level"?: number}}): by default each
instance's own oracle.json (`cowork-judge import --with-labels`); --labels FILE|DIR (repeatable):
a folder holding <name>.json or <name>/oracle.json, a file <name>.json, or one JSON object
{instance name: {row id: …}}.

report (JSON, schema cowork-judge/calibration/v1): per-row accuracy, Cohen's kappa,
precision / recall / F1 of hit (human labels as the reference), per-tag breakdown, level
agreement of graded rows, reward effect (MAE, bias, Spearman across instances), each with a
percentile cluster-bootstrap interval (clusters = instances; --seed, --draws, --confidence).

left out, each counted in the report: instances whose stored result was judged on another instance, instances whose delivery is missing (their rows were never
sent to a model), rows decided without a model, labels whose "criterion" text is not their row's
description (a warning names both), instances whose labels name no row. Intervals need at least
5 instances (clusters) behind them, the rule summarize follows too; below that the report gives
none and says why.

example:
  cowork-judge import devai devai/instances --out tasks --labels devai/human_labels --deliverables ws/
  cowork-judge calibrate tasks --out runs --report calibration.json
"""


def _cache_out(environ: dict[str, str], out: Path) -> Path | None:
    """`out` when JUDGE_VERDICT_CACHE is a yes word (``on``, ``1``…): the cache asked for, kept in
    ``<out>/verdict-cache`` as a batch keeps it (`batch.instances.batch_cache_env`); else None, so
    that calibrate caches nothing unless asked (its re-runs measure the judge again). Before,
    ``on`` reached the runs, which warned "using the default (none)" and cached nothing."""
    from cowork_judge.core.knobs import TRUTHY

    return out if environ.get("JUDGE_VERDICT_CACHE", "").strip().lower() in TRUTHY else None


def main(argv: list[str]) -> int:
    """Calibrate the judge on the instances named in `argv`; prints the report path."""
    try:
        args = _parser().parse_args(argv)
        if args.draws < 0 or args.seed < 0 or not 0 < args.confidence < 1:
            raise UsageError("--draws and --seed must be ≥ 0 and --confidence in (0, 1)")
    except UsageError as exc:
        print(f"cowork-judge calibrate: error: {exc}", file=sys.stderr)
        return 2
    from cowork_judge.batch.instances import BatchInputError, child_env
    from cowork_judge.fleet.calibrate import LabelError, read_labels

    def fail(message: str, status: int = 2) -> int:
        print(f"cowork-judge calibrate: {message}", file=sys.stderr)
        return status

    if args.report.exists() and not args.force:
        return fail(f"{args.report} exists (use --force to overwrite)", 1)
    try:
        instances, unread = _discover(args.instances, judging=args.out is not None)
        names = [i.name for i in instances]
        labels = _load_labels(args.labels, {i.name: i.tests_dir.parent for i in instances}, read_labels)
    except (BatchInputError, LabelError, ValueError, OSError) as exc:
        return fail(str(exc))
    results_dir = args.results if args.results is not None else args.out
    if args.out is not None:
        from cowork_judge.batch.pool import WorkerStartError
        from cowork_judge.batch.runner import BatchRunner, run_with_signals
        from cowork_judge.core.exit_status import EXIT_STATUS

        limits = _prepare_out(args.out, instances, max_in_flight=args.max_in_flight, jobs=args.jobs)
        if isinstance(limits, str):
            return fail(limits)
        from cowork_judge.commands.batch import rescore_line, resume_line
        from cowork_judge.batch.lock import BatchLock, BatchLocked
        from cowork_judge.batch.runner import write_outputs
        from cowork_judge._util.procs import judge_environment
        from cowork_judge.config.judge_config import load_config

        environ = judge_environment()
        lock = BatchLock(args.out)
        try:
            lock.acquire()
        except (BatchLocked, OSError) as exc:
            return fail(str(exc), 1)
        try:
            runner = BatchRunner(args.out, limits, child_env(environ, limits, _cache_out(environ, args.out)),
                                 deadline_sec=load_config(environ).config.deadline_sec, lock_fd=lock.fd,
                                 on_outcome=lambda o: print(f"calibrate: judged {o.name}: {o.state}", file=sys.stderr))
            from cowork_judge.commands.batch import batch_api_step

            status = batch_api_step(args, runner, instances)  # --batch-api: record, submit, poll
            if status is not None:
                return status
            try:
                judged, received = run_with_signals(runner, instances)
            except BatchInputError as exc:  # a link planted under --out while it ran (batch.outdir)
                return fail(str(exc))
            except WorkerStartError as exc:  # a broken installation: nothing can be judged (what finished is kept)
                return fail(str(exc), 1)
            print(resume_line(judged.rejudged, len(instances)).replace("batch:", "calibrate:", 1), file=sys.stderr)
            if judged.rescored:
                print(rescore_line(judged.rescored).replace("batch:", "calibrate:", 1), file=sys.stderr)
            try:  # the same batch.json / summary.json / instance_tags.json as `batch --out`
                write_outputs(args.out, instances, judged, limits, seed=args.seed, draws=args.draws)
            except OSError as exc:
                return fail(f"cannot write the batch outputs: {exc}", 1)
        finally:
            lock.release()
        if judged.stopped:
            return fail("interrupted while judging; run the same command again to resume",
                        EXIT_STATUS["SIGINT"] if received == 2 else EXIT_STATUS["SIGTERM"])
    elif not results_dir.is_dir():
        return fail(f"--results {results_dir}: not a folder")
    calibrated, missing = _calibrate_instances(instances, labels, results_dir, unread=unread)
    if not calibrated or not any(i.confusion.n for i in calibrated):
        return fail(_nothing_to_calibrate(missing, len(names)), 1)
    return _write_report(args, calibrated, missing)


def _write_report(args: argparse.Namespace, calibrated: list[InstanceCalibration], missing: dict[str, list[str]]) -> int:
    """Write the calibration report to --report, print its path and the headline; returns
    the exit status (1 when it cannot be written)."""
    from cowork_judge.fleet.calibrate import report
    from cowork_judge.fleet.outputs import OutputExists, canonical_json, write_file

    doc = report(calibrated, draws=args.draws, seed=args.seed, confidence=args.confidence, missing=missing)
    try:
        write_file(args.report, canonical_json(doc), force=args.force)
    except (OutputExists, OSError) as exc:
        print(f"cowork-judge calibrate: {exc}", file=sys.stderr)
        return 1
    print(str(args.report))
    print(_headline(doc), file=sys.stderr)
    return 0


def _parser() -> Parser:
    """The command line of ``cowork-judge calibrate``."""
    p = Parser(prog="cowork-judge calibrate", description="Agreement of the judge's verdicts with human labels, and the "
               "effect on rewards, with bootstrap intervals.", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("instances", type=Path, help="a folder of instances or a JSONL list (as for batch)")
    p.add_argument("--labels", type=Path, action="append", default=[], help="oracle files or folders (default: <instance>/oracle.json)")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--results", type=Path, help="read the verdicts of an earlier batch from this folder")
    source.add_argument("--out", type=Path, help="judge the instances into this folder first (a resumable batch)")
    p.add_argument("--report", type=Path, required=True, help="the calibration report (JSON) to write")
    p.add_argument("--force", action="store_true", help="overwrite the report")
    p.add_argument("--max-in-flight", type=int, default=8, help="with --out: model calls in flight at most (default 8)")
    p.add_argument("--jobs", type=int, help="with --out: judge processes at once")
    from cowork_judge.commands.batch import add_batch_api_arguments

    add_batch_api_arguments(p)  # with --out
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--draws", type=int, default=1000, help="bootstrap draws; 0 = no intervals (default 1000)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (default 0.95)")
    return p


def _prepare_out(out: Path, instances: list[BatchInstance], *, max_in_flight: int, jobs: int | None) -> Limits | str:
    """Check what judging into `out` needs before anything is written, as ``batch`` does (an
    --out outside every instance, the settings and the endpoint, the limits) and make the
    folder; returns the limits, or the problem in one line."""
    from cowork_judge._util.procs import judge_environment
    from cowork_judge.batch.instances import plan_limits
    from cowork_judge.batch.outdir import check_output_folder, output_inside_input
    from cowork_judge.commands.batch import endpoint_problem, settings_problem

    inside = output_inside_input(out, instances)
    if inside is not None:
        return inside
    problem = (settings_problem(judge_environment(), "cowork-judge calibrate")
               or endpoint_problem(judge_environment(), instances))  # before anything is written, as batch does
    if problem is not None:
        return problem
    try:
        limits = plan_limits(max_in_flight, jobs, len(instances))
        out.mkdir(parents=True, exist_ok=True)
        check_output_folder(out, [i.name for i in instances])  # a BatchInputError is a ValueError
    except (ValueError, OSError) as exc:
        return str(exc)
    return limits


def _nothing_to_calibrate(missing: dict[str, list[str]], total: int) -> str:
    """The message of a calibrate with nothing to pair: how many instances were left out, by why."""
    return (f"nothing to calibrate: no instance has a judged row with a label ({len(missing['result'])} without "
            f"result, {len(missing['mismatch'])} whose stored result was judged on another instance, "
            f"{len(missing['labels'])} without labels, {len(missing['delivery'])} with nothing delivered, "
            f"{len(missing['no_match'])} whose labels name no row, of {total})")


def _discover(source: Path, *, judging: bool) -> tuple[list[BatchInstance], str | None]:
    """The instances of `source` and, for ``--results`` when their rollouts cannot be read, why (None: read).

    ``--out`` (`judging`) needs the rollouts. ``--results`` reads them when it can, to check that each stored result
    was judged on this rollout (`_judged_elsewhere`, trial 11 F6); without them (labels and ``tests/`` only) the
    results are paired by their rows' text alone, and the caller says so.

    Raises:
        BatchInputError: as `batch.instances.discover_instances`.
    """
    from cowork_judge.batch.instances import BatchInputError, discover_instances

    if judging:
        return discover_instances(source), None
    try:
        return discover_instances(source), None
    except BatchInputError as exc:
        return discover_instances(source, rollouts=False), str(exc)


def _judged_elsewhere(inst: BatchInstance, doc: ResultDocument, results_dir: Path, *, fingerprints: bool) -> str | None:
    """Why the stored result `doc` of `inst` was judged on another instance than the one given (trial 11 F6), or None.

    Its rows must ask the questions the instance's rubric asks (`Criterion.question_changes`, as ``rescore`` reuses a
    verdict: the same row ids, no row reworded, its polarity, hurdle flag, type or levels changed; a new weight is
    no change), and with `fingerprints` the instance's fingerprint (`batch.instances.fingerprint`: ``tests/``, the
    final answer, the deliverables' names, sizes and times) must be the one its batch recorded in
    ``batch-instance.json`` (a result with no record is not left out: `_fingerprint_recorded`).
    """
    from pydantic import ValidationError

    from cowork_judge.batch.instances import fingerprint
    from cowork_judge.core.fold import stored_run
    from cowork_judge.core.rubric import RubricError, load_rubric

    try:
        rows = {c.id: c for c in load_rubric(inst.tests_dir / "rubric.json").criteria}
        stored = {c.id: c for c in stored_run(doc)[0]}
    except (RubricError, ValidationError, OSError) as exc:
        return f"its rows cannot be compared with its rubric ({str(exc).splitlines()[0]})"
    said = [f"row {rid!r} is not in the stored result" for rid in rows if rid not in stored]
    said += [f"row {rid!r} of the stored result is not in the rubric" for rid in stored if rid not in rows]
    said += [f"row {rid!r} changed ({', '.join(changes)})" for rid, row in rows.items()
             if rid in stored and (changes := row.question_changes(stored[rid]))]
    if said:
        return "; ".join(said[:3]) + ("; …" if len(said) > 3 else "")
    recorded = _fingerprint_recorded(results_dir / inst.name) if fingerprints else None
    try:
        if recorded is not None and recorded != fingerprint(inst):
            return ("the batch-instance.json fingerprint differs (its rollout or tests/ changed since it was judged; a "
                    "copy that lost the files' times counts as changed, as batch resume reads it)")
    except OSError as exc:
        return f"its fingerprint cannot be computed ({exc})"
    return None


def _fingerprint_recorded(inst_out: Path) -> str | None:
    """The instance fingerprint the batch recorded in ``<inst_out>/batch-instance.json``; None without one."""
    from cowork_judge.batch.instances import RECORD_NAME

    try:
        recorded = json.loads((inst_out / RECORD_NAME).read_text(encoding="utf-8")).get("fingerprint")
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        return None
    return recorded if isinstance(recorded, str) else None


def _calibrate_instances(instances: list[BatchInstance], labels: dict[str, Any], results_dir: Path, *,
                         unread: str | None = None) -> tuple[list[InstanceCalibration], dict[str, list[str]]]:
    """Each instance's verdicts (its result.json under `results_dir`) against its labels.

    Args:
        unread: why the rollouts could not be read (`_discover`; one warning says so, and no result's recorded
            instance fingerprint is checked); None: they were, and each is (`_judged_elsewhere`).

    Returns:
        The calibrated instances, and the names left out by why: ``result`` (no usable
        result), ``mismatch`` (its stored result was judged on another rollout or rubric: `_judged_elsewhere`),
        ``labels`` (none), ``delivery`` (nothing delivered), ``no_match`` (no label
        names a row of its rubric); each left out with one line on stderr. ``unchecked`` names the calibrated
        instances whose fingerprint could not be checked (no rollouts, or no ``batch-instance.json``).
    """
    from cowork_judge.fleet.calibrate import calibrate_instance
    from cowork_judge.fleet.documents import parse_document, read_regular

    fingerprints = unread is None
    if unread is not None:
        print(f"cowork-judge calibrate: warning: the rollouts cannot be read ({unread}): the stored results are paired by "
              "their rows' text only, not by the instance fingerprint (batch-instance.json); give the instances with "
              "their rollouts to check which rollout each result was judged on", file=sys.stderr)
    calibrated: list[InstanceCalibration] = []
    missing: dict[str, list[str]] = {"result": [], "mismatch": [], "labels": [], "delivery": [], "no_match": [],
                                     "unchecked": []}
    for inst in instances:
        if inst.name not in labels:
            missing["labels"].append(inst.name)
            continue
        path = VerifierLayout.under(results_dir / inst.name).result_json
        try:
            doc, _, error = parse_document(read_regular(path))
        except OSError:
            doc, error = None, "missing"
        if doc is None:
            missing["result"].append(inst.name)
            print(f"cowork-judge calibrate: {inst.name}: no usable result ({error})", file=sys.stderr)
            continue
        elsewhere = _judged_elsewhere(inst, doc, results_dir, fingerprints=fingerprints)
        if elsewhere is not None:  # trial 11 F6: labels of this instance against verdicts on another
            missing["mismatch"].append(inst.name)
            print(f"cowork-judge calibrate: {inst.name}: warning: its stored result was judged on another instance: "
                  f"{elsewhere}; left out (judge it again with --out)", file=sys.stderr)
            continue
        if doc.extra_fields.delivery_missing:  # nothing was judged: its "verdicts" are no judge's answers
            missing["delivery"].append(inst.name)
            print(f"cowork-judge calibrate: {inst.name}: nothing delivered (no files, no final message): left out of "
                  "agreement (give the agent's work with import --deliverables)", file=sys.stderr)
            continue
        one = calibrate_instance(inst.name, doc, labels[inst.name], inst.tags)
        for line in (*one.text_mismatches, *one.label_conflicts, *_unknown_label_lines(one, doc)):
            print(f"cowork-judge calibrate: {inst.name}: warning: {line}", file=sys.stderr)
        if one.confusion.n == 0 and one.unjudged == 0 and one.unknown_labels and one.unknown_labels + len(
                one.text_mismatches) >= len(labels[inst.name]):
            missing["no_match"].append(inst.name)
            print(f"cowork-judge calibrate: {inst.name}: none of its {len(labels[inst.name])} label(s) names a row of "
                  "its rubric: left out", file=sys.stderr)
            continue
        calibrated.append(one)
        if not fingerprints or _fingerprint_recorded(results_dir / inst.name) is None:
            missing["unchecked"].append(inst.name)
            if fingerprints:
                print(f"cowork-judge calibrate: {inst.name}: warning: no batch-instance.json beside its result: which "
                      "rollout it was judged on cannot be checked; paired by its rows' text only", file=sys.stderr)
    return calibrated, missing


def _unknown_label_lines(one: InstanceCalibration, doc: ResultDocument) -> list[str]:
    """One line per label of `one` that names no row of the rubric of `doc` (its result document),
    with the closest row id (trial 12 F8: such a label was only counted, and its row looked unlabelled)."""
    import difflib

    ids = [str(c.get("id")) for c in doc.criteria]
    lines = []
    for label in one.unknown_label_ids:
        close = difflib.get_close_matches(label, ids, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        lines.append(f"label {label!r} names no row of its rubric{hint}: not paired, and that row is unlabelled")
    return lines


def _load_labels(paths: list[Path], roots: dict[str, Path], read: Any) -> dict[str, Any]:
    """Labels per instance name (see the epilog). Raises ValueError / LabelError / OSError."""
    out: dict[str, Any] = {}

    def load(path: Path) -> Any:
        try:
            return load_json_file(path)  # a UTF-8 byte-order mark is accepted (the fleet's one JSON reader)
        except (UnicodeDecodeError, ValueError) as exc:
            raise ValueError(f"{path}: not UTF-8 JSON ({exc})") from None

    if not paths:
        for name, root in roots.items():
            if (root / "oracle.json").is_file():
                out[name] = read(load(root / "oracle.json"), str(root / "oracle.json"))
        return out
    for path in paths:
        if path.is_dir():
            for name in roots:
                for candidate in (path / f"{name}.json", path / name / "oracle.json"):
                    if candidate.is_file():
                        out[name] = read(load(candidate), str(candidate))
                        break
            continue
        if not path.is_file():
            raise ValueError(f"--labels {path}: no such file or folder")
        data = load(path)
        single = isinstance(data, dict) and all(isinstance(v, dict) and "hit" in v for v in data.values())
        if single:
            owner = path.stem if path.stem in roots else (next(iter(roots)) if len(roots) == 1 else None)
            if owner is None:
                raise ValueError(f"--labels {path}: an oracle file must be named <instance name>.json")
            out[owner] = read(data, str(path))
        elif isinstance(data, dict):
            for name, oracle in data.items():
                if name in roots:
                    out[name] = read(oracle, f"{path} [{name}]")
        else:
            raise ValueError(f"--labels {path}: expected an oracle object or {{instance: oracle}}")
    return out


def _headline(doc: dict[str, Any]) -> str:
    a, r = doc["agreement"], doc["reward"]

    def fmt(value: Any, interval: Any = None) -> str:
        if value is None:
            return "n/a"
        return f"{value:.3f}" + (f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "")

    return (f"calibrate: {a['n']} row pairs over {doc['instances']['calibrated']} instance(s): accuracy "
            f"{fmt(a['accuracy'], a['accuracy_ci'])}, kappa {fmt(a['kappa'], a['kappa_ci'])}, F1 {fmt(a['f1'], a['f1_ci'])}; "
            f"reward MAE {fmt(r['mae'], r['mae_ci'])}, Spearman {fmt(r['spearman'], r['spearman_ci'])}"
            + (f" ({a['ci_note']})" if a["ci_note"] else "") + _left_out(doc) + _partial(doc)
            + (f"; {doc['rows']['label_conflicts']} label(s) whose level contradicts its hit or a row scored by hit, "
               "read by the scoring rule (warnings above)" if doc["rows"].get("label_conflicts") else "")
            + (f"; {doc['rows']['unknown_labels']} label(s) naming no row of the rubric, not paired (warnings above)"
               if doc["rows"].get("unknown_labels") else ""))


def _partial(doc: dict[str, Any]) -> str:
    """Trial 5 F1 / trial 10 F2: an instance with unlabelled model rows has no human reward (left
    out of the reward effect, not scored as human misses): say on how many."""
    n, total = doc["reward"]["human_partial"], doc["instances"]["calibrated"]
    if not n:
        return ""
    return (f"; human reward withheld on {n} of {total} instance(s): {doc['rows']['unlabelled']} model row(s) without "
            "a label (an unlabelled row is no human miss nor violation), reward MAE/bias/Spearman over the rest")


def _left_out(doc: dict[str, Any]) -> str:
    i, rows = doc["instances"], doc["rows"]
    parts = [f"{len(i['result_mismatch'])} instance(s) whose stored result was judged on another rollout or rubric"
             if i["result_mismatch"] else "",
             f"{len(i['delivery_missing'])} instance(s) with nothing delivered" if i["delivery_missing"] else "",
             f"{len(i['labels_match_no_row'])} whose labels name no row" if i["labels_match_no_row"] else "",
             f"{rows['label_text_mismatch']} label(s) whose text is not their row's" if rows["label_text_mismatch"] else "",
             f"{rows['not_sent']} row(s) never sent to a model" if rows["not_sent"] else "",
             f"{len(doc['reward']['judge_failed'])} instance(s) the judge failed on (exit_code set) from the reward "
             "effect" if doc["reward"]["judge_failed"] else ""]
    parts = [p for p in parts if p]
    return ("; left out: " + ", ".join(parts)) if parts else ""
