"""The engine entry: wire one judge run together and always leave a reward behind.

I/O first (rubric, delivery), then judging (router), then the pure fold (scoring,
coverage), then writing. `main_run` catches everything: an internal failure becomes a
``judge:scorer_error`` document, and if even that cannot be built, `write_fallback`
writes a minimal one. No exit path leaves ``/logs/verifier`` without reward.txt and
result.json.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import tempfile
import time
import traceback
import uuid
from collections.abc import Callable, Mapping, Sequence
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cowork_judge import ABI, __version__
from cowork_judge._util import procs
from cowork_judge.core.error_kinds import ErrorKind, ExitCode
from cowork_judge.core.exit_status import signal_exit_status
from cowork_judge.core.fold import RunFacts, RunFailure, all_unjudged, fold, nothing_delivered
from cowork_judge.evidence.reads import StructureReads
from cowork_judge.core.result import ResultDocument
from cowork_judge.core.rubric import Criterion, RubricError, load_rubric
from cowork_judge.core.scoring import ScoringError, check_scorable
from cowork_judge.code_methods.polarity import refuse_backwards_rows
from cowork_judge.core.verdicts import Verdict
from cowork_judge.code_methods.files import TEXT_METHODS
from cowork_judge.engine import evidence_step, guarding, run_log, set_aside, signals, verifier_dir, watchdog
from cowork_judge.evidence.kinds import DECK_SUFFIXES  # noqa: F401 - DECK_SUFFIXES: the run's deck test, re-exported
from cowork_judge._util.fsutil import discard_scratch, sweep_abandoned_scratch
from cowork_judge._util.given_paths import tests_dir_hint
from cowork_judge.core.findings import GuardReport
from cowork_judge.safety.redact import Redactor
from cowork_judge.config.effects import invalid_reward_settings
from cowork_judge.config.judge_config import JudgeConfig, LoadedConfig, export_credentials
from cowork_judge.run.context import RunContext
from cowork_judge.run.collect import (
    NO_DELIVERY_REASON,
    collect_delivery,
    copy_stray,
    delivery_details,
    no_delivery_reason,
    no_output_folder_notes,
)
from cowork_judge.run.fingerprint import verdict_fingerprint
from cowork_judge.run.verdict_cache import RunCache
from cowork_judge.run.instruction import find_instruction, task_prompt_text
from cowork_judge.run.sampling_plan import run_cost, sampling_record
from cowork_judge.run.outputs import write_fallback, write_result
from cowork_judge.run.paths import RunPaths
from cowork_judge.segment.audit import AuditLog
from cowork_judge.segment.deadline import Deadline
from cowork_judge.segment.delivery import Delivery
from cowork_judge.segment.judges import calls_opened

log = logging.getLogger("cowork_judge")


def main_run(paths: RunPaths, loaded: LoadedConfig, *, start: float, hard_deadline: bool = False) -> ResultDocument | None:
    """Run the judge and write the outputs; never raises (except KeyboardInterrupt after writing).

    A KeyboardInterrupt (Ctrl-C of an in-process caller such as ``demo``; the command line's
    ``run`` routes SIGINT to its watchdog instead) writes the document of a cut run, as the
    watchdog does: rows judged so far keep their verdicts, the rest are unjudged
    ``interrupted``, ``details.interrupted`` is set (a batch resume judges it again); then
    the KeyboardInterrupt is raised again.

    Args:
        paths: run paths.
        loaded: configuration with its warnings.
        start: monotonic time of process start; JUDGE_DEADLINE counts from here.
        hard_deadline: arm the process watchdog (`cowork_judge.engine.watchdog`), which ends
            the PROCESS a few seconds after JUDGE_DEADLINE; only for the command line.

    Returns:
        The document written, or None when only the fallback could be written.
    """
    ready = _hold_folders(paths, loaded)
    if ready is None:
        return None
    paths, loaded, held, work_fd = ready
    config = loaded.config
    redactor = loaded.redactor
    handlers = run_log.start(paths, redactor)
    dog = watchdog.arm(paths, loaded, redactor, start=start) if hard_deadline else None
    previous = _stop_on_signals(dog) if dog is not None else {}
    live = _Live()
    try:
        doc = _run(paths, loaded, start=start, redactor=redactor, live=live)
        write_result(paths, doc, redactor)
        if dog is not None:
            dog.written(doc)
        log.info("reward %s written to %s (status %s%s)", doc.task_score, paths.reward_txt, doc.status,
                 f", {doc.exit_code}" if doc.exit_code else "")
        return doc
    except KeyboardInterrupt:  # Ctrl-C: the document of a cut run, never a scorer_error taken for a judged one
        _write_interrupted(paths, loaded, live, start=start)
        raise
    except BaseException as exc:  # every exit path writes a reward
        log.error("internal error: %s", redactor.redact("".join(traceback.format_exception(type(exc), exc, exc.__traceback__))))
        reason = redactor.redact(f"internal error: {type(exc).__name__}: {exc}")
        doc = None
        try:
            facts = RunFacts(identity=config.identity(), seconds=time.monotonic() - start,
                             failure=RunFailure(exit_code="judge:scorer_error", exit_reason=reason),
                             # the settings it ran under: a batch resume calls it an error, not a settings change
                             fingerprint=verdict_fingerprint(config, paths.tests_dir), run_id=uuid.uuid4().hex)
            doc = fold((), {}, config.scoring, facts)
            write_result(paths, doc, redactor)
        except BaseException:
            write_fallback(paths, exit_code="judge:scorer_error", exit_reason=reason, identity=_identity_dict(config),
                           seconds=time.monotonic() - start, redactor=redactor)
            doc = None
        return doc
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        watchdog.disarm(dog)
        procs.kill_all()  # no LibreOffice / Chromium / regex worker outlives the run
        run_log.stop(handlers)
        if paths.ephemeral_work:
            discard_scratch(paths.work_dir)
        if work_fd is not None:
            os.close(work_fd)
        os.close(held)


def _hold_folders(paths: RunPaths, loaded: LoadedConfig) -> tuple[RunPaths, LoadedConfig, int, int | None] | None:
    """Hold the verifier folder and the work dir for this run and make the verifier folder safe to write.

    Returns ``(paths, loaded, verifier_fd, work_fd)`` — the paths moved to a private work folder and the warning
    added to `loaded` when another live run holds the given work dir (trial 9 F1, `verifier_dir.hold_work`), and
    the warning of what an earlier run's report/rescore left in the folder, set aside (`set_aside`, trial 13 F4) —, or
    None when the run cannot write its outputs (said on stderr, its temp work folder removed: nothing judged)."""
    try:
        held = verifier_dir.hold(paths)  # before `prepare`, which would clear another live run's audit
    except verifier_dir.OutputsUnwritable as exc:  # checked before any model call: nothing could be saved
        _unwritable(paths, exc)
        return None
    work_fd: int | None = None
    try:
        paths, work_fd, moved = verifier_dir.hold_work(paths)  # never two live runs in one work dir
        verifier_dir.prepare(paths)
    except verifier_dir.OutputsUnwritable as exc:
        for fd in (held, work_fd):
            if fd is not None:
                os.close(fd)
        _unwritable(paths, exc)
        return None
    if moved:
        print(f"cowork-judge: {moved}", file=sys.stderr)
    aside = set_aside.set_aside_derived(paths.layout)  # trial 13 F4: no earlier report beside this run's result
    added = [w for w in (moved, aside) if w]
    if added:
        loaded = dataclasses.replace(loaded, warnings=[*loaded.warnings, *added])
    _sweep_abandoned(paths, work_fd)
    return paths, loaded, held, work_fd


def _sweep_abandoned(paths: RunPaths, work_fd: int | None) -> None:
    """Remove the scratch folders that ended runs left (a SIGKILL skips every clean-up; trial 13 L5) in the temp
    folder and, when this run holds it, under its work dir; say how many on stderr (`fsutil.sweep_abandoned_scratch`)."""
    parents = {Path(tempfile.gettempdir())} | ({paths.work_dir} if work_fd is not None else set())
    removed = [name for parent in sorted(parents) for name in sweep_abandoned_scratch(parent)]
    if removed:
        print(f"cowork-judge: removed {len(removed)} scratch folder(s) that ended runs left ({', '.join(removed[:3])}"
              f"{' …' if len(removed) > 3 else ''})", file=sys.stderr)


def _unwritable(paths: RunPaths, exc: OSError) -> None:
    """End a run whose verifier folder cannot be written or is held by another run: say why, and remove the
    run's own temp work folder (trial 7 F10: an empty ``cowork-judge-*`` folder was left in TMPDIR)."""
    print(f"cowork-judge: {exc}", file=sys.stderr)
    if paths.ephemeral_work:
        discard_scratch(paths.work_dir)


@dataclass
class _Live:
    """What `_run` has reached so far (for the document of an interrupted run)."""

    ctx: RunContext | None = None
    criteria: Sequence[Criterion] | None = None


INTERRUPTED_REASON = "the judge was stopped by SIGINT (Ctrl-C)"


def _write_interrupted(paths: RunPaths, loaded: LoadedConfig, live: _Live, *, start: float) -> None:
    """Write the document of a run cut by Ctrl-C (`watchdog.cut_document`), or the fallback."""
    log.error("%s; rows not judged yet are unjudged 'interrupted'", INTERRUPTED_REASON)
    try:
        doc = watchdog.cut_document(paths, loaded, INTERRUPTED_REASON, "interrupted", criteria=live.criteria,
                                    ctx=live.ctx, started_at=start)
        write_result(paths, doc, loaded.redactor)
        log.error("reward %s of the cut run written to %s (coverage %.3f)", doc.task_score, paths.reward_txt,
                  doc.extra_fields.judge_coverage)
    except Exception:  # noqa: BLE001 - an unreadable rubric: the fallback still leaves a reward
        write_fallback(paths, exit_code="judge:timeout", exit_reason=INTERRUPTED_REASON,
                       identity=_identity_dict(loaded.config), seconds=time.monotonic() - start,
                       redactor=loaded.redactor)


def _identity_dict(config: JudgeConfig) -> dict[str, Any]:
    try:
        return config.identity().model_dump(mode="json")
    except Exception:  # noqa: BLE001 - the fallback then keeps the template's identity
        return {}


def _stop_on_signals(dog: watchdog.Watchdog) -> dict[int, Any]:
    """Route `signals.STOP_SIGNALS` to the watchdog, which writes the best document (rows judged
    so far keep their verdicts, the rest are unjudged ``interrupted``) and ends the
    process. Returns the previous handlers; {} outside the main thread."""
    def handler(signum: int, _frame: Any) -> None:
        dog.stop_now(f"the judge was stopped by {signal.Signals(signum).name}", signal_exit_status(signum))

    previous: dict[int, Any] = {}
    try:
        for signum in signals.STOP_SIGNALS:
            previous[signum] = signal.signal(signum, handler)
    except ValueError:  # not the main thread: leave the defaults
        for restored, old in previous.items():
            signal.signal(restored, old)
        return {}
    early = signals.pending()  # arrived while the run was starting (`signals.capture`)
    if early is not None:
        handler(early, None)
    return previous


class _Run:
    """What every document of one run shares: its configuration, warnings and clock.

    `document` is the only way `_run` ends: every path (skipped, bad rubric, unreadable
    answer, nothing delivered, no credentials, router failure, judged) folds through
    `core.fold.fold`.
    """

    def __init__(self, loaded: LoadedConfig, start: float, tests_dir: Path | None = None) -> None:
        self.config = loaded.config
        self.start = start
        self.fingerprint = verdict_fingerprint(loaded.config, tests_dir) if tests_dir is not None else None
        self.run_id = uuid.uuid4().hex  # details.run_id: tells a copy of this run's document from another run's
        self.warnings: list[str] = list(loaded.warnings)
        self.settings_invalid = tuple(invalid_reward_settings(loaded.sources))
        self.guard: GuardReport | None = None
        for w in loaded.warnings:
            log.warning("config: %s", w)

    def warn(self, source: str, messages: Sequence[str], *, prefix: str = "") -> None:
        """Log each message as a warning and record it in the document's warnings."""
        for message in messages:
            log.warning("%s: %s", source, message)
            self.warnings.append(f"{prefix}{message}")

    def document(self, criteria: Sequence[Criterion] = (), verdicts: Mapping[str, Verdict] | None = None, *,
                 delivery: Delivery | None = None, ctx: RunContext | None = None, evidence: dict[str, Any] | None = None,
                 evidence_pages: int = 0, failure: RunFailure | None = None, skipped: bool = False, note: str | None = None,
                 instruction_source: str | None = None) -> ResultDocument:
        facts = RunFacts(
            identity=self.config.identity(),
            delivery=delivery_details(delivery) if delivery is not None else None,
            seconds=time.monotonic() - self.start,
            calls=ctx.stats.calls if ctx is not None else 0,
            tokens=ctx.stats.tokens if ctx is not None else 0,
            evidence_pages=evidence_pages,
            evidence=evidence or {},
            warnings=(*self.warnings, *(ctx.limiter_warnings() if ctx is not None else ())),
            instruction_source=instruction_source,
            failure=failure,
            skipped=skipped,
            exit_note=note,
            fingerprint=self.fingerprint,
            run_id=self.run_id,
            settings_invalid=self.settings_invalid,
            guard=self.guard or GuardReport(mode=self.config.guard),
            sampling=sampling_record(self.config),
            cost=run_cost(self.config, ctx.stats if ctx is not None else None),
        )
        return fold(criteria, verdicts or {}, self.config.scoring, facts)

    def failed(self, criteria: Sequence[Criterion], kind: ErrorKind | None, code: ExitCode, reason: str, *,
               delivery: Delivery | None = None) -> ResultDocument:
        """A run that cannot score: every row unjudged `kind` (none when the rubric is unusable)."""
        log.error(reason)
        verdicts = all_unjudged(criteria, kind, reason) if kind else {}
        return self.document(criteria, verdicts, delivery=delivery, failure=RunFailure(exit_code=code, exit_reason=reason))


def _delivery(run: _Run, paths: RunPaths, redactor: Redactor, criteria: Sequence[Criterion],
              reads: StructureReads) -> Delivery | ResultDocument:
    """What the agent delivered (stray files copied aside, the guard's scan in `run.guard`, the
    decks it parsed kept in `reads`),
    or the finished document of a run with nothing to judge: an app dir that is no folder, an
    unreadable final message (both ``delivery_unreadable``), nothing delivered (reward 0
    without a model call)."""
    config = run.config
    if not paths.app_dir.is_dir():  # a wrong --app-dir is not "nothing delivered" (a 0 that trains the model)
        return run.failed(criteria, "delivery_unreadable", "judge:scorer_error",
                          f"the app dir {paths.app_dir} does not exist or is not a folder: the deliverables cannot be "
                          "looked for, so nothing was scored (check --app-dir / JUDGE_APP_DIR)")
    delivery = collect_delivery(paths, config)
    AuditLog(paths.audit_dir, redactor).keep_final_message(delivery.final_message, delivery.final_message_source,
                                                           delivery.final_message_cut)  # trial 22 P-3: for the report page
    if not delivery.files:  # nothing scored: missing, or the final message judged in its place (trial 39 P-3)
        delivery.notes.extend(no_output_folder_notes(delivery, paths, DECK_SUFFIXES))  # trial 19 P-3
    if delivery.stray:
        copy_stray(delivery, paths.stray_dir)
    log.info("delivery: %d file(s), %d stray, final message from %s", len(delivery.files), len(delivery.stray),
             delivery.final_message_source or "nowhere")
    run.warn("delivery", delivery.notes, prefix="delivery: ")
    if any(c.judge_method == "workflow" and c.workflow.name == "answer_match" for c in criteria):  # imported only then: a code-only run stays light
        from cowork_judge.workflow.answer_match import from_files_warning
        run.warn("delivery", from_files_warning(criteria, delivery), prefix="delivery: ")  # trial 20 P-3
    run.guard = guarding.scan(delivery, config, redactor, task_prompt_text(paths.task_prompt, needs_model=False)[0], reads=reads,
                              model_rows=any(c.judge_method != "code" for c in criteria))
    run.warn("guard", guarding.unscanned_warnings(run.guard))
    if paths.logs_dir_absent:  # trial 6 F9: a mistyped --logs-dir hides the final message
        absent = logs_dir_absent_reason(paths.logs_dir)
        if delivery.missing:
            also = "".join(f"; also: {n}" for n in no_output_folder_notes(delivery, paths, DECK_SUFFIXES))  # trial 19 P-3
            return run.failed(criteria, "delivery_unreadable", "judge:scorer_error",
                              f"{absent}, so nothing was scored (not 'nothing delivered'){also}", delivery=delivery)
        run.warn("delivery", [f"{absent}; only the deliverable files were judged"], prefix="delivery: ")
    if delivery.missing and delivery.unreadable:
        return run.failed(criteria, "delivery_unreadable", "judge:scorer_error",
                          f"the agent's final message could not be read ({', '.join(delivery.unreadable)}); "
                          "not scoring it as 'nothing delivered'", delivery=delivery)
    if delivery.missing and delivery.final_message and any(reads_final_message(c) for c in criteria):
        return delivery  # JUDGE_CHAT_FALLBACK off, no files: `_message_rows_only` judges the rows that read the message
    if delivery.missing:
        log.info("nothing delivered: reward 0 without any model call")
        return run.document(criteria, nothing_delivered_verdicts(criteria, delivery), delivery=delivery,
                            note="nothing delivered")
    return delivery


def reads_final_message(row: Criterion) -> bool:
    """True for a code row whose text method searches the final message (``"source": "response"``): such a
    row reads the chat answer in every run, whatever JUDGE_CHAT_FALLBACK says (trial 13 L7)."""
    return (row.judge_method == "code" and row.code.method_name in TEXT_METHODS
            and row.code.params.get("source") == "response")


def _message_rows_only(run: _Run, criteria: Sequence[Criterion], ctx: RunContext, instruction_source: str) -> ResultDocument:
    """The document of a run that delivered no files, only a final message, with JUDGE_CHAT_FALLBACK off
    (trial 13 L7): the message is not judged as the deliverable, so every row is nothing delivered
    (`nothing_delivered_verdicts`) but the code rows that read the message (`reads_final_message`),
    which are judged on it as in any run; a warning names both sets."""
    readers = [c for c in criteria if reads_final_message(c)]
    others = [c for c in criteria if not reads_final_message(c)]
    said = (f"rows {', '.join(c.id for c in others)} are scored as nothing delivered; " if others else "")
    run.warn("delivery", [f"JUDGE_CHAT_FALLBACK is off and no files were delivered, only a final message: it is not "
                          f"judged as the deliverable, so {said}code rows {', '.join(c.id for c in readers)} "
                          "(\"source\": \"response\") read the final message, as they do in every run"], prefix="delivery: ")
    from cowork_judge.engine.router import route_code_rows

    warned = len(ctx.delivery.notes)
    verdicts = nothing_delivered_verdicts(others, ctx.delivery)  # decided first: they gate the readers
    verdicts.update(route_code_rows(readers, ctx, dict(verdicts), {c.id: c for c in criteria}))
    run.warn("delivery", ctx.delivery.notes[warned:], prefix="delivery: ")
    return run.document(criteria, verdicts, delivery=ctx.delivery, ctx=ctx, instruction_source=instruction_source)


def logs_dir_absent_reason(logs_dir: Path) -> str:
    """What a run says when ``--logs-dir`` named no folder when it began (`RunPaths.logs_dir_absent`)."""
    return (f"--logs-dir {logs_dir} did not exist when the run began (the judge created it for the verdicts): the "
            "agent's final message (agent/) could not be looked for (check --logs-dir)")


def nothing_delivered_verdicts(criteria: Sequence[Criterion], delivery: Delivery | None = None) -> dict[str, Verdict]:
    """The verdicts of a run with nothing delivered, decided without a model (reward 0, SPEC §6):
    `core.fold.nothing_delivered` (a positive row a miss, a deduction not hit, a hurdle hit so the run is
    `fatal` — trial 3 L3: "the response is empty" was recorded as not hit on an empty answer).

    The reason is `run.collect.no_delivery_reason` of `delivery` (`NO_DELIVERY_REASON` without one): it names
    the output files that were there and not read — a symbolic link leaving output/, a file of 0 bytes (trial 7
    F1) — instead of "no output files".

    Returns:
        row id → a judged `Verdict` (method ``delivery``) for every row of `criteria`.
    """
    return nothing_delivered(criteria, no_delivery_reason(delivery) if delivery is not None else NO_DELIVERY_REASON)


def _instruction(run: _Run, paths: RunPaths, *, needs_model: bool) -> tuple[str, str, str]:
    """The judge instruction, where it came from (`find_instruction`) and the task prompt
    (`task_prompt_text`); their warnings go to the run's warnings, named ``instruction: `` and
    ``task_prompt: `` (trial 11 F12: a task prompt the judge cannot read cleanly is said)."""
    instruction, instruction_source, instruction_warnings = find_instruction(paths.tests_dir, run.config.instruction_file)
    run.warn("instruction", instruction_warnings, prefix="instruction: ")
    if instruction_source == "built-in":
        log.info("instruction: no judge instruction file in %s; using the built-in default", paths.tests_dir)
    task_prompt, prompt_warnings = task_prompt_text(paths.task_prompt, needs_model=needs_model)
    run.warn("task_prompt", prompt_warnings, prefix="task_prompt: ")
    if needs_model:  # trial 12 F11: a refused JUDGE_AUX_FILES entry is in the document, not only in the log
        from cowork_judge.agentic.workspace import aux_file_sources

        run.warn("config", aux_file_sources(run.config.aux_files, paths.tests_dir)[1])
    return instruction, instruction_source, task_prompt


def _code_rows_only(run: _Run, loaded: LoadedConfig, criteria: Sequence[Criterion], ctx: RunContext,
                    instruction_source: str) -> ResultDocument:
    """The document of a run whose model rows have no credential: the code rows still run
    (no model needed); the model rows are unjudged ``no_credential`` and the run is an error."""
    reason = loaded.missing_credentials()  # each half named: unset, or set and ignored (a URL without a scheme)
    log.error(reason)
    code_rows = [c for c in criteria if c.judge_method == "code"]
    verdicts = _route()(code_rows, ctx) if code_rows else {}
    verdicts.update(all_unjudged([c for c in criteria if c.judge_method != "code"], "no_credential", reason))
    return run.document(criteria, verdicts, delivery=ctx.delivery, ctx=ctx, instruction_source=instruction_source,
                        failure=RunFailure(exit_code="judge:no_credential", exit_reason=reason))


def _router(run: _Run, criteria: Sequence[Criterion],
            delivery: Delivery) -> Callable[[Sequence[Criterion], RunContext, RunCache | None], dict[str, Verdict]] | ResultDocument:
    """The router (`_route`); when it cannot be imported, a purely agentic rubric is judged
    directly (`agentic.dispatch.judge_agentic`), any other ends the run ``workflow_missing``."""
    try:
        route: Callable[[Sequence[Criterion], RunContext, RunCache | None], dict[str, Verdict]] = _route()
    except Exception as exc:
        if any(c.judge_method != "agentic" for c in criteria):
            return run.failed(criteria, "workflow_missing", "judge:scorer_error",
                              f"the router cannot run ({type(exc).__name__}: {exc}) and the rubric has code/workflow rows",
                              delivery=delivery)
        log.warning("the router cannot run (%s); judging this purely agentic rubric directly", exc)
        from cowork_judge.agentic.dispatch import judge_agentic

        def route(rows: Sequence[Criterion], run_ctx: RunContext, cache: RunCache | None = None) -> dict[str, Verdict]:
            return judge_agentic(rows, run_ctx.segment())  # no verdict cache without the router, as before

    return route


def _where_tests(paths: RunPaths, exc: Exception) -> str:
    """The "did you mean" of a rubric not found in ``--tests-dir`` (`given_paths.tests_dir_hint`: the task folder or
    a typo given, trial 39 P-4), else ""."""
    if not isinstance(exc, RubricError) or paths.rubric_json != paths.tests_dir / "rubric.json":
        return ""
    return tests_dir_hint(paths.tests_dir)


def _run(paths: RunPaths, loaded: LoadedConfig, *, start: float, redactor: Redactor, live: _Live | None = None) -> ResultDocument:
    run = _Run(loaded, start, paths.tests_dir)
    config = run.config
    log.info("cowork-judge %s (abi %d), backend %s, model %s", __version__, ABI, config.backend, config.model)
    if config.scoring.reward_mode == "binary":
        run.warn("config", ["JUDGE_REWARD_MODE=binary: the reward is 1.0 only when the score passes the threshold "
                            f"({config.scoring.pass_compare} {config.scoring.pass_threshold}), else 0.0; graded signal between rollouts is lost"])
    deadline = Deadline.after(config.deadline_sec, start=start)
    if config.skip:
        log.info("JUDGE_SKIP is set: archiving only, reward 'SKIPPED'")
        return run.document(skipped=True, note="JUDGE_SKIP is set")
    try:
        rubric = load_rubric(paths.rubric_json)
        check_scorable(rubric.criteria)
        refuse_backwards_rows(rubric.criteria)  # trial 14 F8: a hurdle on locate_deck
    except (RubricError, ScoringError) as exc:
        return run.failed((), None, "judge:scorer_error", f"bad rubric: {exc}{_where_tests(paths, exc)}")
    criteria = rubric.criteria
    run.warn("rubric", rubric.warnings)
    reads = StructureReads()  # each deck parsed once: by the guard's scan, reused by the evidence step
    delivery = _delivery(run, paths, redactor, criteria, reads)
    if isinstance(delivery, ResultDocument):
        return delivery
    warned = len(delivery.notes)  # code rows return notes while judging (a read limit hid an answer)
    needs_model = not delivery.missing and any(c.judge_method != "code" for c in criteria)
    credentials = config.has_credentials or any(j.api_key is not None for j in config.panel)
    if credentials:
        export_credentials(config)
    instruction, instruction_source, task_prompt = _instruction(run, paths, needs_model=needs_model)
    ctx = RunContext(
        paths=paths, config=config, instruction=instruction, instruction_source=instruction_source,
        task_prompt=task_prompt, delivery=delivery, deadline=deadline, redactor=redactor,
        audit=AuditLog(paths.audit_dir, redactor), workflow_config=dict(rubric.workflow_config),
    )
    watchdog.observe(ctx, criteria)
    run.warn("delivery", evidence_step.chat_deck_warnings(criteria, delivery.from_chat, task_prompt), prefix="delivery: ")  # trial 28 P-5
    if live is not None:
        live.ctx, live.criteria = ctx, tuple(criteria)
    if delivery.missing:  # JUDGE_CHAT_FALLBACK off, no files, a final message some code rows read
        return _message_rows_only(run, criteria, ctx, instruction_source)
    if needs_model and not credentials:
        return _code_rows_only(run, loaded, criteria, ctx, instruction_source)
    agentic = [c.id for c in criteria if c.judge_method == "agentic"]  # they view the pages: a deck not rendered is said
    evidence, evidence_pages = evidence_step.collect(ctx, needs_evidence=needs_model, reads=reads,  # code rows never look at page images
                                                     page_readers=agentic, init_fixes=evidence_step.init_picks_deck_extras(
                                                         criteria, ctx.task_prompt))
    ctx.extras_blind = evidence.pop(evidence_step.EXTRAS_MISSING_KEY, None)  # trial 23 P-1: agentic rows not judged blind
    run.warn("evidence", evidence.pop("warnings", []), prefix="evidence: ")  # trial 8 F7: a renderer that wrote nothing is said
    route = _router(run, criteria, delivery)
    if isinstance(route, ResultDocument):
        return route
    guard_row = guarding.guard_row() if config.guard_row and any(c.judge_method == "agentic" for c in criteria) else None
    assert ctx.calls is not None  # RunContext makes it
    routed = [*criteria, guard_row] if guard_row else criteria
    cache = RunCache.of(ctx, routed)  # the verdict cache's keys, built once from the run's context
    if cache is not None and (unusable := cache.store.unusable()):
        run.warn("config", [unusable])  # trial 7 F3: a cache that stores nothing is said, not an INFO line
    with calls_opened(ctx.calls, ctx.sampling):  # one HTTP client per endpoint for every segment of the run
        verdicts = route(routed, ctx, cache)
    if cache is not None:
        run.warn("cache", cache.store.rejected)  # trial 10 F4: an edited or unreadable entry is said, and re-asked
    if config.guard == "penalize" and run.guard is not None and run.guard.flagged:
        from cowork_judge.engine.confirm import confirm

        with calls_opened(ctx.calls, ctx.sampling):  # issue 35: only a confirmed attempt is penalized
            run.guard = confirm(run.guard, criteria, verdicts, ctx, route)
    if guard_row is not None:  # recorded in the guard block, never a row of the score
        said = verdicts.pop(guard_row.id, None)
        run.guard = (run.guard or GuardReport(mode=config.guard)).model_copy(update={
            "row": True, "row_hit": said.hit if said is not None and said.judged else None,
            "row_reason": redactor.redact(said.reason)[:500] if said is not None else None})
    run.warn("delivery", ctx.delivery.notes[warned:], prefix="delivery: ")  # the code rows' notes, merged by the router
    if evidence:
        evidence["kept"] = evidence_step.keep(ctx)
    doc = run.document(criteria, verdicts, delivery=ctx.delivery, ctx=ctx, evidence=evidence, evidence_pages=evidence_pages,
                       instruction_source=instruction_source)
    log.info("score %s (raw %s), coverage %.3f, %d model call(s)", doc.task_score, doc.score_raw,
             doc.extra_fields.judge_coverage, ctx.stats.calls)
    return doc


def _route() -> Any:
    """The router, imported late: a broken router must not stop the documents."""
    from cowork_judge.engine.router import route

    return route


