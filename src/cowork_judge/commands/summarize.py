"""``cowork-judge summarize``: account for many result documents and summarize them (SPEC §19)."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cowork_judge._util.jsontext import json_text

if TYPE_CHECKING:
    from cowork_judge.fleet.summarize import Summarizer

EPILOG = """\
inputs: a directory (every */verifier/result.json below it: a Harbor job, a tree of
--logs-dir runs), a .jsonl file (one document per line), a result file, or a glob such as
'runs/**/result.rescored.json' (quote it). Every input is accounted for: scored, degraded,
systemic, delivery_missing, skipped, invalid, unreadable, duplicate.

task key (bootstrap clusters): auto = a top-level "task_id" in the document, else the
Harbor trial directory (<task>__<7 chars>/verifier/result.json, <rollout>/logs/verifier/…)
or, when the instance tags give that instance a "task" tag, that task (a batch tags every
instance with its task: rollouts of one tests/ share it), else the document alone; path;
rubric (same rows = same task); field:NAME; none.

intervals: percentile cluster bootstrap (--draws, --seed, --confidence). A statistic gets an
interval only when at least 5 clusters contribute to it (the rule calibrate follows too);
otherwise it is null, and "intervals" and each block's "ci_note" say why.

exit codes: 0 when the summary is written (inputs that are not readable result documents
are counted, named in "problems" and on stderr); 2 when no input was a readable result
document (the summary is still written, naming them) and for usage errors; 1 when an
output cannot be written or exists without --force.

example:
  cowork-judge summarize jobs/2026-06-01 --out summary.json --html summary.html \\
      --group-by tag --group-by difficulty --instance-tags tasks.json
"""
PROBLEMS_SHOWN = 10  # problem lines on stderr; the summary's "problems" names every one
KEYS_SHOWN = 40  # valid --group-by keys named when an unknown one is refused


def main(argv: list[str]) -> int:
    """Summarize the inputs into ``--out`` (and ``--html``); prints the output path(s).

    Returns:
        0 on success (also when some inputs are invalid: they are counted and named, in the
        summary and on stderr), 1 when an output cannot be written or exists without
        ``--force``, 2 for usage errors, inputs that name nothing readable, and when no input
        was a readable result document (the summary is still written).
    """
    args = _parser().parse_args(argv)

    from cowork_judge.fleet.documents import InputError, check_task_key_mode, discover, read_items
    from cowork_judge.fleet.outputs import OutputExists, Progress, canonical_json, write_file
    from cowork_judge.fleet.summarize import Summarizer, SummaryOptions

    def fail(message: str, status: int = 2) -> int:
        print(f"cowork-judge summarize: {message}", file=sys.stderr)
        return status

    out, html = Path(args.out), Path(args.html) if args.html else None
    if (problem := _usage_problem(args, out, html)) is not None:
        return fail(problem)
    group_by = tuple(dict.fromkeys(k.strip() for g in args.group_by for k in g.split(",") if k.strip()))
    try:
        check_task_key_mode(args.task_key)
        tags, tags_record = _instance_tags(Path(args.instance_tags)) if args.instance_tags else ({}, None)
        folder_tags: dict[str, dict[str, dict[str, Any]]] = {}
        if not args.instance_tags:  # trial 3 M7: a batch's --out folder carries its instances' tags
            for path in _batch_tag_files(args.inputs):  # each for its own folder's documents (trial 12 F2)
                more, record = _instance_tags(path)
                folder_tags[os.path.realpath(path.parent)] = more
                tags_record = record if tags_record is None else {
                    "path": f"{tags_record['path']}, {record['path']}",
                    "sha256": hashlib.sha256((tags_record["sha256"] + record["sha256"]).encode()).hexdigest()}
                print(f"summarize: instance tags read from {path} (the batch's own; --instance-tags FILE replaces them)",
                      file=sys.stderr)
        running = _running_batches(args.inputs)
        files = discover(args.inputs, missing=True, running=running)
    except (InputError, ValueError, OSError) as exc:
        return fail(str(exc))
    for line in _earlier_batch_folders(args.inputs) + [_running_line(arg) for arg in running]:
        print(f"summarize: warning: {line}", file=sys.stderr)
    if (refused := _output_problem(out, html, {os.path.realpath(f.path) for f in files}, force=args.force)) is not None:
        return fail(*refused)
    options = SummaryOptions(task_key=args.task_key, group_by=group_by, seed=args.seed, draws=args.draws,
                             confidence=args.confidence, include_reasons=args.include_reasons, instance_tags=tags,
                             folder_tags=folder_tags)
    summarizer = Summarizer(options)
    any_jsonl = any(f.jsonl for f in files)
    progress = Progress(None if any_jsonl else len(files), "summarize")
    for item in read_items(files, on_file=summarizer.add_file):
        summarizer.add(item)
        progress.tick()
    progress.done()
    if (problem := _unknown_keys_problem(summarizer)) is not None:
        return fail(problem + ("" if args.instance_tags else "; instance tags come from --instance-tags FILE (a JSON "
                               "object task → {key: value}, or a batch's instance_tags.json, read by itself from a "
                               "batch's --out folder)"))
    summary = summarizer.result()
    if tags_record is not None:
        summary["options"]["instance_tags"] = tags_record
    try:
        if html is not None:
            _write_page(html, summary, force=args.force)
        write_file(out, canonical_json(summary), force=args.force)
    except OutputExists as exc:
        return fail(str(exc), 1)
    except OSError as exc:
        return fail(f"cannot write {exc.filename or out}: {exc.strerror or exc}", 1)
    acc = summary["accounting"]
    print(str(out))
    if html is not None:
        print(str(html))
    _tell(summary, out, draws=args.draws)
    readable = acc["inputs"] - acc.get("invalid", 0) - acc.get("unreadable", 0)
    if readable == 0:
        return fail(_nothing_readable(summary))
    return 0


def _nothing_readable(summary: dict[str, Any]) -> str:
    """The closing error of a summary in which no input was a readable result document.

    Names the input files that held no document at all (an empty ``.jsonl``, only blank lines),
    which ``problems`` cannot name: they gave no input to classify (trial 5 F9).
    """
    named = "no input was a readable result document (each is named above and in the summary's problems)"
    empty = [str(f["path"]) for f in summary["inputs"]["list"] if f.get("documents") == 0]
    if not empty:
        return named
    said = f"{', '.join(empty)}: no result document in {'it' if len(empty) == 1 else 'them'} (empty, or only blank lines)"
    return said if summary["accounting"]["inputs"] == 0 else f"{said}; {named}"


def _parser() -> argparse.ArgumentParser:
    """The command line of ``cowork-judge summarize``."""
    p = argparse.ArgumentParser(prog="cowork-judge summarize", description="Summarize many result documents: accounting, "
                                "reward distribution, coverage, error kinds, hit rates, bootstrap CIs.",
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="directory, .jsonl file, result file or glob")
    p.add_argument("--out", required=True, help="summary JSON to write (refused if it exists, unless --force)")
    p.add_argument("--html", help="also write a self-contained HTML page with plots")
    p.add_argument("--force", action="store_true", help="overwrite existing output files")
    p.add_argument("--task-key", default="auto", help="bootstrap cluster key: auto, path, rubric, none, field:NAME (default auto)")
    p.add_argument("--group-by", action="append", default=[], metavar="KEY",
                   help="tabulate by a row key (tag, criterion_type, judge_method, a key of extra or of extra.tags "
                        "'key:value') and/or an instance key (class, task, judge_model, a document field, document "
                        "tags, --instance-tags); repeatable or comma-separated")
    p.add_argument("--instance-tags", metavar="FILE", help="JSON object {task: {key: value}} or JSONL rows with 'task'")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--draws", type=int, default=1000, help="bootstrap draws; 0 = no intervals (default 1000)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (default 0.95)")
    p.add_argument("--include-reasons", action="store_true", help="include sample reason texts per row (row-level text)")
    return p


def _usage_problem(args: argparse.Namespace, out: Path, html: Path | None) -> str | None:
    """What is wrong with the options (None: nothing): --out and --html naming one file, a
    negative --draws or --seed, a --confidence outside (0, 1)."""
    if html is not None and html.absolute() == out.absolute():
        return "--out and --html name the same file"
    if args.draws < 0 or args.seed < 0 or not 0.0 < args.confidence < 1.0:
        return "--draws and --seed must be ≥ 0 and --confidence in (0, 1)"
    return None


def _output_problem(out: Path, html: Path | None, inputs: set[str], *, force: bool) -> tuple[str, int] | None:
    """Why --out or --html cannot be written, with the exit status (None: both can): one of
    the `inputs` (real paths), an existing file without `force`, a missing folder, a folder."""
    for flag, target in (("--out", out), ("--html", html)):
        if target is not None and os.path.realpath(target) in inputs:
            return (f"{flag} {target} is one of the inputs: summarize never writes over a document it reads; "
                    "give another file"), 2
    for target in (t for t in (out, html) if t is not None):
        if not force and target.exists():
            return f"{target} exists (use --force to overwrite)", 1
        if not target.parent.is_dir():
            return f"{target.parent} is not a directory", 1
        if target.is_dir():  # issue 39: said before reading anything, naming the user's path
            return (f"cannot write {target}: is a folder, not a file: name the file to write "
                    f"(e.g. {target / ('summary.html' if target is html else 'summary.json')})"), 1
    return None


def _unknown_keys_problem(summarizer: Summarizer) -> str | None:
    """The --group-by keys no document or row carries, with the keys that are there (None:
    every key is known, or no input was a result document)."""
    from cowork_judge.fleet.summarize import CLASSES

    unknown = summarizer.unknown_group_keys()
    if unknown and any(summarizer.classes[c] for c in CLASSES if c not in ("invalid", "unreadable", "duplicate")):
        known = summarizer.known_group_keys()  # issue 39: an unknown key was one silent empty group
        shown_keys = ", ".join(known[:KEYS_SHOWN]) + (f", … ({len(known) - KEYS_SHOWN} more)" if len(known) > KEYS_SHOWN else "")
        odd = [k for k in unknown if summarizer.not_groupable[k]]  # trial 6 F3: said apart, never listed as valid
        missing = [k for k in unknown if k not in odd]
        said = [f"--group-by {', '.join(missing)}: no document or row carries {'this key' if len(missing) == 1 else 'these keys'}"] \
            if missing else []
        said += [f"--group-by {k}: {summarizer.not_groupable[k]} document(s) carry it only as a list or an object, which "
                 "cannot be grouped (give each instance a string, number or boolean)" for k in odd]
        return "; ".join(said) + f"; valid keys here: {shown_keys}"
    return None


def _write_page(html: Path, summary: dict[str, Any], *, force: bool) -> None:
    """Write the HTML page of `summary` to `html` (`fleet.summary_html`).

    Raises:
        OutputExists: the file exists and `force` is not set.
        OSError: it cannot be written.
    """
    from cowork_judge.fleet.outputs import write_file
    from cowork_judge.fleet.summary_html import render_summary

    write_file(html, render_summary(summary).encode("utf-8"), force=force)


def _tell(summary: dict[str, Any], out: Path, *, draws: int) -> None:
    """Say on stderr what the summary found: the accounting, the first problems (all are in
    `out`), withheld intervals (`draws` > 0), mixed policies, unsealed documents, sampling."""
    acc = summary["accounting"]
    shown = ", ".join(f"{k} {v}" for k, v in acc.items() if k != "inputs" and v)
    print(f"summarize: {acc['inputs']} inputs: {shown or 'none'}", file=sys.stderr)
    problems = summary["problems"]
    for problem in problems[:PROBLEMS_SHOWN]:  # trial finding 15b: never only inside the JSON
        print(f"summarize: {problem['class']}: {problem['input']}" + (f": {problem['error']}" if problem["error"] else ""),
              file=sys.stderr)
    if len(problems) > PROBLEMS_SHOWN:
        print(f"summarize: … and {len(problems) - PROBLEMS_SHOWN} more problem(s), all in {out} (problems)", file=sys.stderr)
    if draws > 0 and summary["intervals"]["withheld"]:  # the fleet's one rule (fleet.stats.MIN_CLUSTERS), as calibrate
        reward_note = summary["reward"]["ci_note"]
        print(f"summarize: {summary['intervals']['note']}" + (f"; reward ({reward_note})" if reward_note else ""), file=sys.stderr)
    invalid = summary["scoring"]["settings_invalid"]
    if invalid["documents"]:  # trial 5, F2: a typo in a verifier's environment scored under the default
        names = ", ".join(f"{name} ({n})" for name, n in invalid["by_variable"].items())
        print(f"summarize: warning: {invalid['documents']} document(s) were scored under a default because a setting "
              f"that changes the reward held an invalid value: {names} (details.settings_invalid)", file=sys.stderr)
    if summary["scoring"]["mixed"]:  # issue 39: never two policies silently
        print(f"summarize: warning: the documents were scored under {len(summary['scoring']['policies'])} different "
              "policies (scoring.policies); rescore them under one to compare rewards", file=sys.stderr)
    for name, entry in summary["groups"].items():  # trial 6 F3: a list or object value lands in (none), said
        if entry.get("not_groupable"):
            print(f"summarize: warning: --group-by {name}: {entry['not_groupable']} document(s) carry it as a list or an "
                  f"object, which cannot be grouped: counted in (none) (groups.{name}.not_groupable)", file=sys.stderr)
    grounding = summary["grounding"]
    if grounding["ungrounded"]:  # issue 37: credited rows whose quote is not in the evidence text
        print(f"summarize: {grounding['ungrounded']} credited row(s) in {grounding['documents_with_ungrounded']} document(s) "
              f"carry no quote found in the evidence ({grounding['withdrawn']} withdrawn by JUDGE_UNGROUNDED=miss)",
              file=sys.stderr)
    if summary["integrity"]["unsealed"]:
        print(f"summarize: {summary['integrity']['unsealed']} document(s) without an integrity digest (written before "
              "seals, 0.2.0): not checked", file=sys.stderr)
    sampling = summary.get("sampling")
    if sampling:  # a sampled or priced fleet: agreement, the least stable row, the cost
        print(f"summarize: sampling: {_sampling_line(sampling)}", file=sys.stderr)


def _sampling_line(sampling: dict[str, Any]) -> str:
    """The sampling block of a summary in one line: agreement, the least stable row, lost
    answers, the cost."""
    agree, cost = sampling["agreement"], sampling["cost"]
    worst = sampling["least_stable_rows"][:1]
    parts = [f"{sampling['documents']['sampled']} sampled"]
    if agree["mean"] is not None:
        parts.append(f"judge_agreement mean {agree['mean']:.3f}")
    if worst and worst[0]["agreement_mean"] is not None and worst[0]["agreement_mean"] < 1.0:
        parts.append(f"least stable row {worst[0]['id']} ({worst[0]['agreement_mean']:.3f})")
    elif agree["mean"] is not None:  # trial 3 L9: every sampled row agreed fully
        parts.append("no row disagreed")
    lost = sampling["lost"]
    if lost["documents"]:
        judges = ", ".join(f"judge {name!r} on {n} row(s)" for name, n in lost["judges"].items())
        parts.append(f"{lost['documents']} degraded by lost answers ({lost['rows']} judged row(s) kept fewer answers, "
                     f"{lost['samples']} sample(s) lost" + (f"; no answer from {judges}" if judges else "") + ")")
    if cost["documents_priced"] or cost["documents_unpriced"]:
        usd = f"${cost['usd']:.4f}" if cost["usd"] is not None else "unknown"
        parts.append(f"cost {usd} over {cost['documents_priced']} priced document(s)"
                     + (f", {cost['documents_unpriced']} without a price" if cost["documents_unpriced"] else ""))
    return ", ".join(parts)


def _running_batches(inputs: list[str]) -> list[str]:
    """The input folders whose batch lock is held now (trial 5, F10): their documents may be missing or change
    while the batch runs."""
    from cowork_judge.batch.lock import is_held

    return [arg for arg in inputs if os.path.isdir(arg) and is_held(Path(arg))]


def _running_line(arg: str) -> str:
    """The warning about the input folder `arg`, whose batch is still running."""
    return (f"a batch is still running in {arg} (its .batch.lock is held): documents may be missing (no_result) "
            "or change; summarize it again when the batch has ended")


def _earlier_batch_folders(inputs: list[str]) -> list[str]:
    """One line per input folder that is a batch's ``--out`` (it holds ``batch.json`` and
    ``instance_tags.json``) with instance folders of an earlier list in it: summarize counts
    them, the batch's own summary.json does not (`batch.outdir.earlier_instance_folders`)."""
    from cowork_judge.batch.outdir import earlier_instance_folders

    lines = []
    for name in inputs:
        folder = Path(name)
        try:
            if not (folder / "batch.json").is_file():
                continue
            names = json.loads((folder / "instance_tags.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        stray = earlier_instance_folders(folder, names) if isinstance(names, dict) else []
        if stray:
            lines.append(f"{folder} is a batch's --out and {len(stray)} instance folder(s) in it are not in its last list "
                         f"(counted here, not in its summary.json): {', '.join(stray[:5])}" + (" …" if len(stray) > 5 else ""))
    return lines


def _batch_tag_files(inputs: list[str]) -> list[Path]:
    """The ``instance_tags.json`` of every input folder that is a batch's ``--out`` (it holds
    ``batch.json`` too), in input order."""
    out = []
    for name in inputs:
        folder = Path(name)
        if (folder / "batch.json").is_file() and (folder / "instance_tags.json").is_file():
            out.append(folder / "instance_tags.json")
    return out


def _instance_tags(path: Path) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """Read ``--instance-tags``: a JSON object task → {key: value}, or JSONL rows each with
    a ``task`` (or ``task_id``) and the tags as other keys.

    Raises:
        ValueError: unreadable or the wrong shape (one line naming the file and row).
        OSError: the file cannot be read.
    """
    data = path.read_bytes()
    record = {"path": str(path), "sha256": hashlib.sha256(data).hexdigest()}
    try:
        text = json_text(data)  # trial 13 L4: a UTF-8 byte-order mark (a Windows tool's) is accepted
        if path.name.endswith(".jsonl"):
            out: dict[str, dict[str, Any]] = {}
            for n, line in enumerate(text.splitlines(), start=1):
                if not line.strip():
                    continue
                row = json.loads(line)
                task = row.get("task", row.get("task_id")) if isinstance(row, dict) else None
                if not isinstance(task, str):
                    raise ValueError(f"{path}:{n}: a row needs a string 'task'")
                out[task] = {k: v for k, v in row.items() if k not in ("task", "task_id")}
            return out, record
        value = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not UTF-8 JSON ({exc})") from None
    if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
        raise ValueError(f"{path}: expected a JSON object of task → {{key: value}}")
    return value, record
