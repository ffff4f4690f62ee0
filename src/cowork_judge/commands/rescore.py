"""``cowork-judge rescore``: recompute rewards from stored verdicts, zero model calls (SPEC §19);
also under another panel vote (``--samples-vote``) or guard policy (``--guard``)."""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from cowork_judge.commands._args import choice_word
from cowork_judge.core.layout import RESCORED_NAME as DEFAULT_NAME

if TYPE_CHECKING:
    from cowork_judge.core.result import ResultDocument
    from cowork_judge.core.rubric import Criterion
    from cowork_judge.fleet.documents import InputFile, Item

OPTION_OF = {"reward_mode": "--mode", "pass_threshold": "--threshold", "pass_compare": "--compare",
             "unjudged_negative": "--unjudged-negative", "systemic_fraction": "--systemic-fraction",
             "systemic_min": "--systemic-min", "ungrounded": "--ungrounded"}
"""Scoring-policy field → the option that sets it."""

EPILOG = f"""\
The new document is written next to each stored one as {DEFAULT_NAME} (never over
result.json or another file the judge writes there: reward.txt, reward.json, ctrf.json …;
an existing target is refused unless --force) and its path is printed.
--name is a plain file name (no '/', not '.' or '..', none of the judge's own file names). Nothing is written outside the
folders given: a document reached through a symbolic link that leaves them (a glob's
'**' follows links) is not rescored, and says so.
A row of --rubric without a stored verdict is unjudged (error_kind no_verdict), and so is a row
that asks another question than the one its stored verdict answered (reworded, weight sign or
hurdle flipped, binary<->graded, new levels): details.warnings and the console name each such
row and what changed. A new weight of the same sign keeps the verdict (a pure re-score).
A stored document of a rollout that delivered nothing (delivery_missing) is the exception: its
new and changed rows are scored [no delivery] as a live run scores them (no model call needed).
--out is never one of the inputs (the --rubric file, the stored document) nor a file the judge
writes in a verifier folder, even with --force.
With no option the stored document is reproduced exactly (its policy is reused).
--samples-vote reduces the samples a sampled run stored (JUDGE_SAMPLES, JUDGE_PANEL)
again under another panel vote, with no model call; rows judged page by page or pass by
pass (ppt_judge) keep their stored verdicts.
Each stored document is checked against the digests its judge sealed it with (and the
reward.txt / reward.json beside a result.json): one that no longer matches is refused, not
rescored (exit 1); one written before seals (0.2.0) is rescored with a warning. The new
document is sealed with the reward it gives.
--guard applies another guard policy (JUDGE_GUARD) to the stored findings, with no new
scan: penalize sets the reward of a flagged sample to 0, flag and off give a sample
penalized by mistake its judged reward back; guard.mode records the policy applied.

examples:
  cowork-judge rescore /logs/verifier/result.json --threshold 0.6
  cowork-judge rescore jobs/2026-06-01 --rubric new_rubric.json --mode binary
  cowork-judge rescore jobs/2026-06-01 --samples-vote unanimous --name result.unanimous.json
  cowork-judge rescore jobs/2026-06-01/task__Xq3v9Lb/verifier/result.json --guard flag
  cowork-judge summarize 'jobs/2026-06-01/**/verifier/{DEFAULT_NAME}' --out rescored.json
"""


def main(argv: list[str]) -> int:
    """Rescore each input document; prints one path per written document.

    Returns:
        0 when every document was rescored, 1 when some input could not be read or
        written, or no longer matches what its judge wrote (refused), 2 for usage errors (bad option, unreadable rubric, nothing to read).
    """
    args = _parser().parse_args(argv)
    from cowork_judge.fleet.documents import argument_root, read_items
    from cowork_judge.fleet.outputs import Progress

    try:
        changes = _policy_changes(args)
        _check_name(args.name)
        new_rubric = _new_rubric(args.rubric)
        files = _input_files(args)
    except _Usage as exc:
        print(f"cowork-judge rescore: {exc}", file=sys.stderr)
        return 2
    job = _Job(args, changes, new_rubric, roots=[argument_root(arg) for arg in args.inputs], single=len(files) == 1)
    outcomes: list[_Outcome] = []
    progress = Progress(len(files), "rescore")
    for item in read_items(files):
        progress.tick()
        outcomes.append(_rescore_item(item, job))
    progress.done()
    failures = sum(o in ("failed", "refused") for o in outcomes)
    if len(files) > 1:
        done, tampered = sum(o in ("same", "changed") for o in outcomes), outcomes.count("refused")
        print(f"rescore: {done} documents rescored, {outcomes.count('changed')} rewards changed, {failures} failed"
              + (f" ({tampered} refused: no longer what the judge wrote)" if tampered else ""), file=sys.stderr)
    return 1 if failures else 0


_Outcome = Literal["same", "changed", "failed", "refused"]
"""What became of one input: rescored (reward the same or changed), failed, or refused
(its seal no longer matches what the judge wrote)."""


class _Usage(Exception):
    """A usage error (exit 2); the message follows ``cowork-judge rescore: ``."""


@dataclass(frozen=True)
class _Job:
    """What every input of one rescore shares: the options, the policy `changes`, the new
    rubric (``(criteria, (file name, sha256))``, None: the stored rows), the folders given
    (`roots`: nothing is written outside them) and whether there is a `single` input."""

    args: argparse.Namespace
    changes: dict[str, Any]
    new_rubric: tuple[tuple[Criterion, ...], tuple[str, str]] | None
    roots: list[Path]
    single: bool


def _parser() -> argparse.ArgumentParser:
    """The command line of ``cowork-judge rescore``."""
    p = argparse.ArgumentParser(prog="cowork-judge rescore", description="Recompute rewards from the verdicts stored in result "
                                "documents, with a new rubric and/or scoring policy; no model calls.",
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="result.json, a verifier dir, or a dir of runs (*/verifier/result.json)")
    p.add_argument("--rubric", help="new rubric.json (weights, rows); default: the stored rows")
    p.add_argument("--mode", type=choice_word, choices=("continuous", "binary"), help="reward mode (JUDGE_REWARD_MODE)")
    p.add_argument("--threshold", type=float, help="pass threshold in [0, 1] (JUDGE_PASS_THRESHOLD)")
    p.add_argument("--compare", type=choice_word, choices=("gte", "gt"), help="pass comparison (JUDGE_PASS_COMPARE)")
    p.add_argument("--unjudged-negative", type=choice_word, choices=("deduct", "ignore"), help="JUDGE_UNJUDGED_NEGATIVE")
    p.add_argument("--systemic-fraction", type=float, help="JUDGE_SYSTEMIC_FRACTION")
    p.add_argument("--systemic-min", type=int, help="JUDGE_SYSTEMIC_MIN")
    p.add_argument("--ungrounded", type=choice_word, choices=("miss", "keep"),
                   help="score credited verdicts whose quote was not found (JUDGE_UNGROUNDED): miss withdraws the credit, "
                        "keep scores them as the judge said")
    p.add_argument("--samples-vote", type=choice_word, choices=("majority", "unanimous", "weighted"),
                   help="reduce stored samples again under this panel vote (JUDGE_PANEL_VOTE); no model call")
    p.add_argument("--guard", type=choice_word, choices=("off", "flag", "penalize"),
                   help="apply this guard policy (JUDGE_GUARD) to the stored findings; no new scan, no model call")
    p.add_argument("--name", default=DEFAULT_NAME, help=f"file name of each new document (default {DEFAULT_NAME})")
    p.add_argument("--out", help="path of the new document (a single input document only)")
    p.add_argument("--force", action="store_true", help="overwrite an existing rescored document")
    return p


def _policy_changes(args: argparse.Namespace) -> dict[str, Any]:
    """The scoring-policy fields the options set (field → value), checked.

    Raises:
        _Usage: a value the policy refuses, or a NaN.
    """
    from pydantic import ValidationError

    from cowork_judge.core.scoring import ScoringPolicy

    changes = {k: v for k, v in (("reward_mode", args.mode), ("pass_threshold", args.threshold), ("pass_compare", args.compare),
                                 ("unjudged_negative", args.unjudged_negative), ("systemic_fraction", args.systemic_fraction),
                                 ("systemic_min", args.systemic_min), ("ungrounded", args.ungrounded)) if v is not None}
    for name in ("pass_threshold", "systemic_fraction"):  # nan slips past every range check with its message
        if name in changes and not math.isfinite(changes[name]):
            raise _Usage(f"bad option {OPTION_OF[name]}: {changes[name]} is not a finite number (a value in [0, 1])")
    try:
        ScoringPolicy.model_validate(changes)
    except ValidationError as exc:
        first = exc.errors(include_input=False, include_url=False)[0]
        raise _Usage(f"bad option {OPTION_OF.get(str(first['loc'][0]), first['loc'][0])}: {first['msg']}") from None
    return changes


def _check_name(name: str) -> None:
    """Refuse a --name that is not a plain file name, or is one of the judge's own files.

    Raises:
        _Usage: naming the problem and the names refused.
    """
    from cowork_judge._util.fsutil import plain_name_problem, quoted
    from cowork_judge.core.layout import JUDGE_FILE_NAMES

    problem = plain_name_problem(name)
    if problem is None and name in JUDGE_FILE_NAMES:
        problem = "is the stored document" if name == JUDGE_FILE_NAMES[0] else "is a file the judge itself writes"
    if problem is not None:
        raise _Usage(f"--name {quoted(name)} {problem}: it must be a plain file name other than "
                     + ", ".join(JUDGE_FILE_NAMES))


def _new_rubric(path: str | None) -> tuple[tuple[Criterion, ...], tuple[str, str]] | None:
    """The rows of --rubric and its record (file name, sha256 hex), None without one.

    Raises:
        _Usage: the rubric cannot be read, is invalid or cannot be scored.
    """
    if not path:
        return None
    from cowork_judge.core.rubric import RubricError, load_rubric
    from cowork_judge.core.scoring import ScoringError, check_scorable

    try:
        rubric = load_rubric(Path(path))
        check_scorable(rubric.criteria)
        record = (Path(path).name, hashlib.sha256(Path(path).read_bytes()).hexdigest())
    except RubricError as exc:  # names the file
        raise _Usage(str(exc)) from None
    except (ScoringError, OSError) as exc:
        raise _Usage(f"rubric {path}: {exc}") from None
    return rubric.criteria, record


def _input_files(args: argparse.Namespace) -> list[InputFile]:
    """The result documents the inputs name.

    Raises:
        _Usage: nothing to read, a JSONL input, or --out with more than one document.
    """
    from cowork_judge.fleet.documents import InputError, discover

    try:
        files = discover(args.inputs)
    except InputError as exc:
        raise _Usage(str(exc)) from None
    if any(f.jsonl for f in files):
        raise _Usage("JSONL input is not supported: rescore reads result.json files (one document per file)")
    if args.out and len(files) != 1:
        raise _Usage("--out needs exactly one input document")
    if args.out:
        _check_out(args.out, files, args.rubric)
    return files


def _check_out(out: str, files: list[InputFile], rubric: str | None) -> None:
    """Refuse an --out that is one of the inputs (the --rubric file, the stored document, also
    through a link) or a file the judge itself writes in a verifier folder — even with --force
    (issue 39, trial 3 H1: ``--out <verifier>/reward.txt --force`` replaced the trial's reward).

    Raises:
        _Usage: naming --out and why.
    """
    from cowork_judge._util.fsutil import quoted
    from cowork_judge.core.layout import JUDGE_FILE_NAMES, judge_file_in_verifier

    inputs = {os.path.realpath(f.path) for f in files} | ({os.path.realpath(rubric)} if rubric else set())
    if os.path.realpath(out) in inputs:
        raise _Usage(f"--out {quoted(out)} is one of the inputs (the --rubric file or a stored document): rescore never "
                     "writes over a file it reads, even with --force; give another file")
    if judge_file_in_verifier(out):
        raise _Usage(f"--out {quoted(out)} is a file the judge itself writes in a verifier folder ("
                     + ", ".join(JUDGE_FILE_NAMES) + "): rescore never writes over it, even with --force; give another file")


def _say(source: str, message: str) -> None:
    """One line about input `source` on stderr."""
    print(f"cowork-judge rescore: {source}: {message}", file=sys.stderr)


def _rescore_item(item: Item, job: _Job) -> _Outcome:
    """Rescore one input and write its new document beside it (or at --out); every problem
    is one line on stderr."""
    if item.doc is None:
        print(f"cowork-judge rescore: {item.source}: {item.problem}: {item.error}", file=sys.stderr)
        return "failed"
    seal = item.seal
    if not seal.ok:  # issue 39 (4b): an edited document would be rescored as if the judge had written it
        _say(item.source, f"refused: {seal.problem}; not rescored (judge the instance again, or restore the files the "
                          "judge wrote)")
        return "refused"
    if seal.state == "unsealed":
        _say(item.source, str(seal.problem))
    target = _target(item, job)
    if target is None:
        return "failed"
    _warn_unchanged(item, job.args)
    return _write_rescored(item, job, target)


def _target(item: Item, job: _Job) -> Path | None:
    """Where the new document of `item` goes; None (said on stderr) when that would write
    over the stored document or outside the folders given."""
    from cowork_judge._util.fsutil import inside

    args, source = job.args, item.file.path
    target = Path(args.out) if args.out else source.with_name(args.name)
    if target.resolve() == source.resolve():
        _say(item.source, "refusing to write over the stored document")
        return None
    if not args.out and not any(inside(target.parent, root) for root in job.roots):
        _say(item.source, f"refusing to write {target}: a symbolic link takes its folder out of {' / '.join(args.inputs)} "
                          "(rescore writes only beside documents inside the folders it was given; name the linked folder "
                          "itself, or use --out)")
        return None
    return target


def _warn_unchanged(item: Item, args: argparse.Namespace) -> None:
    """Say when --samples-vote or --guard cannot change (all of) the stored document: no
    stored samples, rows judged page by page, a run that was not scanned."""
    from cowork_judge.fleet.rescore import samples_kept, samples_revotable

    assert item.doc is not None
    sampling = item.doc.details.sampling
    if args.samples_vote and sampling is None:
        _say(item.source, "warning: no stored samples (not a sampled run); --samples-vote changes nothing")
    elif args.samples_vote and sampling is not None and not samples_revotable(item.doc) and not samples_kept(item.doc):
        # issue 39: a sampled run whose rows hold no samples (each decided by code, or unjudged) was silent
        _say(item.source, f"warning: a sampled run (JUDGE_SAMPLES={sampling.samples}) but no row holds stored samples; "
                          "--samples-vote changes nothing")
    elif args.samples_vote and (kept := samples_kept(item.doc)):
        _say(item.source, f"{kept} row(s) answered page by page or pass by pass keep their stored verdicts")
    stored_guard = item.doc.guard
    if args.guard and args.guard != stored_guard.mode and not stored_guard.scanned:
        _say(item.source, f"the stored run was not scanned (JUDGE_GUARD={stored_guard.mode}); --guard {args.guard} has no "
                          "findings to apply")


def _say_new_rows(source: str, doc: ResultDocument, criteria: tuple[Criterion, ...]) -> None:
    """One warning line per row of `criteria` whose stored verdict is not reused: a row that asks another question
    (trial 3 H2) or a new row (trial 5 F20), and what becomes of it: unjudged (no_verdict), or scored ``[no delivery]``
    as the live run scores it when the stored run delivered nothing (trial 11 F11).

    Raises:
        pydantic.ValidationError: a stored row is not a valid criterion.
    """
    from cowork_judge.core.fold import stored_run
    from cowork_judge.fleet.rescore import SCORED_AS_NOTHING_DELIVERED, changed_questions, changed_warnings, stored_no_delivery

    stored_rows, stored_verdicts, _, facts = stored_run(doc)
    empty = stored_no_delivery(stored_verdicts, facts) is not None
    for line in changed_warnings(changed_questions(stored_rows, criteria, stored_verdicts), nothing_delivered=empty):
        _say(source, f"warning: {line}")
    for row in criteria:  # trial 5 F20: a new row cannot be re-scored, only left unjudged (or scored: nothing delivered)
        if row.id in stored_verdicts:
            continue
        _say(source, f"warning: row {row.id!r} is new: {SCORED_AS_NOTHING_DELIVERED}" if empty else
             f"warning: row {row.id!r} is new (the stored result has no verdict for it): unjudged (no_verdict)")


def _write_rescored(item: Item, job: _Job, target: Path) -> _Outcome:
    """Rescore the stored document of `item`, seal it and write it to `target`; prints the
    path (and, for a single input, the reward before → after)."""
    from pydantic import ValidationError

    from cowork_judge.core import integrity
    from cowork_judge.core.legacy import with_legacy_fields
    from cowork_judge.core.scoring import ScoringError
    from cowork_judge.fleet.documents import read_regular
    from cowork_judge.fleet.outputs import OutputExists, canonical_json, write_file
    from cowork_judge.fleet.rescore import changed_fields, provenance, rescore
    from cowork_judge.run.outputs import format_reward, format_reward_json

    args, doc = job.args, item.doc
    assert doc is not None
    stored_policy = doc.details.policy
    diff = changed_fields(job.changes, stored_policy)
    digest = hashlib.sha256(read_regular(item.file.path)).hexdigest()
    sampling = doc.details.sampling
    voted = (sampling.vote, args.samples_vote) if args.samples_vote and sampling is not None else None
    guarded = (doc.guard.mode, args.guard) if args.guard else None
    criteria, rubric_record = job.new_rubric if job.new_rubric is not None else (None, None)
    try:
        if criteria is not None:  # issue 39 (trial 3 H2): name each row whose stored verdict answers another question
            _say_new_rows(item.source, doc, criteria)
        new = rescore(doc, criteria=criteria, policy_changes=job.changes, samples_vote=args.samples_vote,
                      guard=args.guard, note=provenance(digest, diff, stored_policy, rubric_record, voted, guarded))
        for line in (w for w in new.details.warnings if w.startswith("hurdle row ") and w not in doc.details.warnings):
            _say(item.source, f"warning: {line}")  # why the reward fell to 0 (an unjudged hurdle made fatal)
        payload = with_legacy_fields(new.model_dump(mode="json", by_alias=True))  # 1.3.6's readers' fields too
        text = canonical_json(payload).decode("utf-8")
        reward = new.task_score if new.status != "skipped" else None
        sealed = integrity.seal(text, format_reward(reward), format_reward_json(reward) if reward is not None else None)
        write_file(target, sealed.encode("utf-8"), force=args.force)
    except (ValidationError, ScoringError, ValueError, OutputExists) as exc:
        _say(item.source, str(exc).splitlines()[0])
        return "failed"
    except OSError as exc:  # trial 4 L4: "cannot write victim: is a folder, not a file", not "[Errno 21] …"
        _say(item.source, f"cannot write {exc.filename or target}: {exc.strerror or exc}")
        return "failed"
    print(str(target))
    if job.single:
        print(f"rescore: reward {doc.task_score} → {new.task_score} (passed {doc.extra_fields.passed} → "
              f"{new.extra_fields.passed}, coverage {new.extra_fields.judge_coverage:.3f}, status {new.status}"
              + (f", guard {new.guard.mode}{': penalized' if new.guard.penalized else ''}" if args.guard else "") + ")",
              file=sys.stderr)
    return "changed" if new.task_score != doc.task_score else "same"
