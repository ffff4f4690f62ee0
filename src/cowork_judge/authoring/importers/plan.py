"""Reading public sources into `Instance` plans (the I/O side of ``cowork-judge import``).

Each ``plan_<format>`` walks its source and yields one `Instance` per example / tree / task,
or a `Problem` naming the file (and line) that could not be converted; the conversions
themselves are the pure functions of the format modules. Sources:

- healthbench: a ``.jsonl`` of examples (one per line), a ``.json`` holding one example, a
  list of them, or simple-evals' ``*_allresults.json`` (graded records under
  ``metadata.example_level_metadata``), or a folder of such files. Graded records bring
  their completion (the rollout) and grades (the labels).
- paperbench: a rubric tree (``.json``) or a folder of them, e.g. the repository's
  ``judge_eval/<paper>/<n>/grading/expected_result.json`` (named ``<paper>-<n>``; a sibling
  ``submission/`` folder becomes the deliverables).
- devai: a task (``instances/*.json``) or a folder of tasks; labels from ``human_labels/``.
- answers: a ``.jsonl`` of reference-answer problems (`answers`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cowork_judge.authoring.importers import answers, devai, healthbench, paperbench
from cowork_judge.authoring.importers.instance import Instance, safe_name

MAX_SOURCE_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class Problem:
    """A source item that could not be converted: where, and why (one line)."""

    where: str
    error: str


@dataclass(frozen=True)
class Skipped:
    """A source item left out on purpose (an option said so): where, and why (one line)."""

    where: str
    reason: str


@dataclass(frozen=True)
class ImportOptions:
    """What the command line asked for.

    Attributes:
        with_labels: write ``oracle.json`` from the grades found in the source (or `labels`).
        labels: a separate file / folder of labels (HealthBench graded records, DevAI
            ``human_labels/``, answers JSONL with ``verdict``).
        deliverables: a folder with one sub-folder of agent files per instance name.
        response: healthbench: ``ideal`` (the physician-written completion) or ``none``.
        no_ideal: healthbench with ``response="ideal"``: an example without an ideal completion
            is ``write``-n without a rollout (and counted apart), or ``skip``-ped.
        preferences: devai: preferences as weight-0 rows.
        process, answer_weight, process_weight, rel_tol: answers (see `answers.rubric_rows`).
        limit: stop after this many instances (None: all).
    """

    with_labels: bool = False
    labels: Path | None = None
    deliverables: Path | None = None
    response: str = "ideal"
    no_ideal: str = "write"
    preferences: bool = False
    process: bool = False
    answer_weight: float | None = None
    process_weight: float | None = None
    rel_tol: float | None = None
    limit: int | None = None


class SourceError(ValueError):
    """The source (or labels) path cannot be read at all (one line)."""


def _files(path: Path, suffixes: tuple[str, ...]) -> list[Path]:
    if path.is_dir():
        found = sorted(p for p in path.rglob("*") if p.is_file() and p.name.endswith(suffixes) and not p.name.startswith("."))
        if not found:
            raise SourceError(f"{path}: no {' or '.join(suffixes)} files in this folder")
        return found
    if path.is_file():
        return [path]
    raise SourceError(f"{path}: no such file or folder")


def _read_json(path: Path) -> Any:
    if path.stat().st_size > MAX_SOURCE_BYTES:
        raise SourceError(f"{path}: larger than {MAX_SOURCE_BYTES} bytes")
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise SourceError(f"{path}: not UTF-8 JSON ({exc})") from None
    except RecursionError:
        raise SourceError(f"{path}: JSON nested too deeply to read") from None


def documents(path: Path, suffixes: tuple[str, ...] = (".json", ".jsonl")) -> Iterator[tuple[str, Any] | Problem]:
    """``(where, decoded document)`` for every document of `path` (a ``.jsonl`` line is one
    document; a ``.json`` file holding a list gives one per element), or a `Problem`.

    Raises:
        SourceError: `path` is missing or holds no such file.
    """
    for f in _files(path, suffixes):
        if f.name.endswith(".jsonl"):
            try:
                lines = f.read_text(encoding="utf-8-sig").splitlines()
            except (OSError, UnicodeDecodeError) as exc:
                yield Problem(str(f), f"cannot read: {exc}")
                continue
            for n, line in enumerate(lines, start=1):
                if line.strip():
                    try:
                        yield f"{f}:{n}", json.loads(line)
                    except ValueError as exc:
                        yield Problem(f"{f}:{n}", f"not JSON ({exc})")
                    except RecursionError:
                        yield Problem(f"{f}:{n}", "JSON nested too deeply to read")
            continue
        try:
            doc = _read_json(f)
        except (SourceError, OSError) as exc:
            yield Problem(str(f), str(exc))
            continue
        if isinstance(doc, list):
            for n, item in enumerate(doc):
                yield f"{f}[{n}]", item
        else:
            yield str(f), doc


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()


def _unique(name: str, taken: set[str]) -> str:
    out, n = name, 2
    while out in taken:
        out, n = f"{name}-{n}", n + 1
    taken.add(out)
    return out


def _deliverables(options: ImportOptions, name: str, fallback: Path | None = None) -> Path | None:
    if options.deliverables is not None:
        folder = options.deliverables / name
        return folder if folder.is_dir() else None
    return fallback if fallback is not None and fallback.is_dir() else None


# --------------------------------------------------------------------------- HealthBench


def _healthbench_items(doc: Any) -> list[Any]:
    meta = doc.get("metadata") if isinstance(doc, dict) else None
    items = meta.get("example_level_metadata") if isinstance(meta, dict) else None
    if isinstance(items, list):
        return items  # simple-evals *_allresults.json
    return [doc]


def _graded_by_prompt(path: Path) -> dict[str, tuple[dict[str, Any], str | None, list[dict[str, Any]]]]:
    out = {}
    for item in documents(path):
        if isinstance(item, Problem):
            raise SourceError(f"labels {item.where}: {item.error}")
        where, doc = item
        for record in _healthbench_items(doc):
            try:
                example, response, grades = healthbench.from_record(record)
            except healthbench.HealthBenchError as exc:
                raise SourceError(f"labels {where}: {exc}") from None
            out[str(example.get("prompt_id"))] = (example, response, grades)
    return out


def plan_healthbench(source: Path, options: ImportOptions) -> Iterator[Instance | Problem | Skipped]:
    """Instances of HealthBench examples or graded records (see the module docstring)."""
    labels = _graded_by_prompt(options.labels) if options.labels is not None else {}
    taken: set[str] = set()
    for item in documents(source):
        if isinstance(item, Problem):
            yield item
            continue
        where, doc = item
        records = _healthbench_items(doc)
        for k, record in enumerate(records):
            at = where if len(records) == 1 else f"{where} record {k}"
            no_ideal = False
            try:
                grades: list[dict[str, Any]] | None = None
                if healthbench.is_graded_record(record):
                    example, response, grades = healthbench.from_record(record)
                else:
                    example = record
                    response = healthbench.ideal_completion(record) if options.response == "ideal" else None
                    if response is None and options.response == "ideal":
                        if options.no_ideal == "skip":
                            yield Skipped(at, "no ideal completion (--no-ideal skip)")
                            continue
                        no_ideal = True
                prompt_id = str(example.get("prompt_id") or _digest(example)[:12])
                if prompt_id in labels:
                    _, labelled_response, grades = labels[prompt_id]
                    response = labelled_response or response
                rows = healthbench.rubric_rows(example)
                prompt = healthbench.task_prompt(example)
                oracle = None
                if options.with_labels or options.labels is not None:
                    oracle = healthbench.oracle(rows, grades) if grades is not None else None
                name = _unique(safe_name(f"healthbench-{prompt_id[:8]}"), taken)
                yield Instance(name=name, collection="healthbench", rows=rows, task_prompt=prompt, kind="chat",
                               response=response, conversation=[m for m in example["prompt"] if isinstance(m, dict)],
                               oracle=oracle, tags=healthbench.instance_tags(example),
                               source={"path": at, "prompt_id": prompt_id, "graded": grades is not None},
                               warnings=["no ideal completion: written without a rollout (nothing delivered)"]
                               if no_ideal and response is None else [])
            except (healthbench.HealthBenchError, KeyError, TypeError, AttributeError) as exc:
                yield Problem(at, f"not a HealthBench example: {exc}")


# --------------------------------------------------------------------------- PaperBench


def plan_paperbench(source: Path, options: ImportOptions) -> Iterator[Instance | Problem]:
    """Instances of PaperBench rubric trees (grades in the tree become the labels)."""
    if options.labels is not None:
        raise SourceError("PaperBench keeps its grades in the tree: use --with-labels, not --labels")
    taken: set[str] = set()
    for item in documents(source, (".json",)):
        if isinstance(item, Problem):
            yield item
            continue
        where, tree = item
        path = Path(where.split("[", 1)[0])
        if path.name == "expected_result.json" and path.parent.name == "grading":  # judge_eval/<paper>/<n>/grading/
            name, submission = f"{path.parents[2].name}-{path.parents[1].name}", path.parents[1] / "submission"
        else:
            name, submission = path.stem, None
        name = _unique(safe_name(name), taken)
        try:
            rows, oracle = paperbench.rubric_and_oracle(tree)
            yield Instance(name=name, collection="paperbench", rows=rows, task_prompt=paperbench.task_prompt(tree, name),
                           kind="files", deliverables=_deliverables(options, name, submission),
                           oracle=oracle if options.with_labels else None, tags={"collection": "paperbench", "paper": name},
                           source={"path": where, "root_id": str(tree.get("id")),
                                   "stored_root_score": paperbench.stored_root_score(tree)})
        except (paperbench.PaperBenchError, KeyError, TypeError, AttributeError) as exc:
            yield Problem(where, f"not a PaperBench rubric tree: {exc}")


# --------------------------------------------------------------------------- DevAI


def _devai_labels(path: Path) -> dict[str, dict[str, Any]]:
    out = {}
    for item in documents(path, (".json",)):
        if isinstance(item, Problem):
            raise SourceError(f"labels {item.where}: {item.error}")
        where, doc = item
        if not isinstance(doc, dict):
            raise SourceError(f"labels {where}: not a DevAI judgment")
        out[str(doc.get("name") or Path(where).stem)] = doc
        out.setdefault(Path(where).stem, doc)
    return out


def plan_devai(source: Path, options: ImportOptions) -> Iterator[Instance | Problem]:
    """Instances of DevAI tasks; requirements → rows with transitive ``depends_on``."""
    labels = _devai_labels(options.labels) if options.labels is not None else {}
    taken: set[str] = set()
    for item in documents(source, (".json",)):
        if isinstance(item, Problem):
            yield item
            continue
        where, task = item
        try:
            name = _unique(safe_name(str(task.get("name") or Path(where).stem)), taken)
            warnings: list[str] = []
            rows = devai.rubric_rows(task, preferences=options.preferences, transitive=True, warnings=warnings)
            oracle = None
            judged = labels.get(str(task.get("name"))) or labels.get(Path(where).stem)
            if options.labels is not None:
                oracle = devai.oracle(judged, task, warnings) if judged is not None else None
            elif options.with_labels:
                oracle = devai.oracle(task, task, warnings)
            yield Instance(name=name, collection="devai", rows=rows, task_prompt=devai.task_prompt(task), kind="files",
                           deliverables=_deliverables(options, name), oracle=oracle,
                           tags=devai.instance_tags(task), source={"path": where, "task": task.get("name")},
                           warnings=warnings)
        except (devai.DevAIError, TypeError, AttributeError, ValueError) as exc:
            yield Problem(where, f"not a DevAI task: {exc}")


# --------------------------------------------------------------------------- reference answers


def _answer_labels(path: Path) -> dict[str, dict[str, Any]]:
    out = {}
    for item in documents(path):
        if isinstance(item, Problem):
            raise SourceError(f"labels {item.where}: {item.error}")
        where, doc = item
        try:
            out[answers.problem_id(doc)] = doc
        except answers.AnswersError as exc:
            raise SourceError(f"labels {where}: {exc}") from None
    return out


def plan_answers(source: Path, options: ImportOptions) -> Iterator[Instance | Problem]:
    """Instances of reference-answer problems judged by the ``answer_match`` workflow."""
    labels = _answer_labels(options.labels) if options.labels is not None else {}
    taken: set[str] = set()
    first: dict[str, str] = {}  # a problem id → the line that gave it first (trial 6 F10: a repeat is said)
    named: dict[str, tuple[str, str]] = {}  # a folder name → the id and line that took it first (trial 12 F9)
    for item in documents(source):
        if isinstance(item, Problem):
            yield item
            continue
        where, record = item
        try:
            pid = answers.problem_id(record)
            rows = answers.rubric_rows(record, process=options.process, answer_weight=options.answer_weight,
                                       process_weight=options.process_weight, rel_tol=options.rel_tol)
            oracle = None
            if options.labels is not None:
                oracle = answers.oracle(labels[pid]) if pid in labels else None
            elif options.with_labels:
                oracle = answers.oracle(record) or None
            collection = str(record.get("collection") or "answers")
            base = safe_name(f"{collection}-{pid}")
            name = _unique(base, taken)
            warnings = ([f"problem id {pid!r} repeats the one of {first[pid]}: written as {name}"] if pid in first else
                        [f"problem id {pid!r} gives the folder name {base} of problem id {named[base][0]!r} "
                         f"({named[base][1]}): written as {name}"] if name != base else [])
            first.setdefault(pid, where)
            named.setdefault(base, (pid, where))
            yield Instance(name=name, collection="answers", rows=rows, task_prompt=answers.task_prompt(record), kind="answer",
                           response=answers.response(record), oracle=oracle, tags=answers.instance_tags(record),
                           source={"path": where, "id": pid}, warnings=warnings)
        except answers.AnswersError as exc:
            yield Problem(where, f"not a reference-answer problem: {exc}")


PLANNERS = {"healthbench": plan_healthbench, "paperbench": plan_paperbench, "devai": plan_devai, "answers": plan_answers}
"""Format name → planner (the formats of ``cowork-judge import``)."""
