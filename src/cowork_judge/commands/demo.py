"""``cowork-judge demo``: judge the bundled example instance, against the built-in simulator
when no judge endpoint is configured (a deterministic policy labelled "simulated judge,
no model")."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from cowork_judge.commands._endpoint import (HalfCredentials, caller_endpoint, nothing_listens, resolved_endpoint,
                                              simulator_note, start_simulator)
from cowork_judge.commands.examples import ROLLOUTS, example_paths
from cowork_judge.core.exit_status import EXIT_STATUS, exit_status
from cowork_judge.core.fatal import fatal_rows, unjudged_kinds, zeroed_sentence
from cowork_judge.core.layout import VerifierLayout
from cowork_judge.core.simulated import simulated_note

if TYPE_CHECKING:
    from cowork_judge.core.result import ResultDocument


def main(argv: list[str]) -> int:
    """Judge a sample rollout and print the reward, the result path and the coverage.

    Returns:
        0 when the result is a clean success, 1 otherwise, 2 when the example is not installed,
        only one of JUDGE_API_KEY/JUDGE_BASE_URL is set (`_endpoint.caller_endpoint`) or nothing listens at a
        loopback JUDGE_BASE_URL (`_endpoint.nothing_listens`), 130 on Ctrl-C.
    """
    p = argparse.ArgumentParser(prog="cowork-judge demo", description="Judge the bundled example instance against the built-in simulator.")
    p.add_argument("--rollout", choices=ROLLOUTS, default="deck", help="which sample rollout to judge")
    p.add_argument("--logs-dir", help="where to write the verifier outputs (default: a new temp dir)")
    args = p.parse_args(argv)
    from cowork_judge.engine.judge import main_run
    from cowork_judge.config.judge_config import load_config
    from cowork_judge.run.paths import RunPaths

    try:
        tests_dir, rollout = example_paths(args.rollout)
    except FileNotFoundError as exc:
        print(f"cowork-judge demo: {exc}", file=sys.stderr)
        return EXIT_STATUS["usage"]
    env = dict(os.environ)
    env.setdefault("JUDGE_START_JITTER", "0")  # a demo should not wait up to 3 minutes
    env.setdefault("JUDGE_WORKFLOW_START_JITTER", "0")  # nor up to 30 s before its first deck request
    try:
        own = caller_endpoint(env)
    except HalfCredentials as exc:  # as `try` does: never quietly the simulator instead of the caller's endpoint
        print(f"cowork-judge demo: error: {exc.message('the demo would not reach your endpoint')}", file=sys.stderr)
        return EXIT_STATUS["usage"]
    if own and (refusal := _nothing_listens(env)):  # as `try` does (trial 23 P-6): said now, not after the retries
        print(f"cowork-judge demo: error: {refusal}", file=sys.stderr)
        return EXIT_STATUS["usage"]
    logs_dir = Path(args.logs_dir) if args.logs_dir else Path(tempfile.mkdtemp(prefix="cowork-judge-demo-"))
    app_dir = rollout / "app"
    if not app_dir.is_dir():  # a chat-only rollout has no files: an empty workdir, as in a real container
        app_dir = logs_dir / "app"
        app_dir.mkdir(parents=True, exist_ok=True)
    paths = RunPaths.of_environment(app_dir=app_dir, logs_dir=logs_dir, tests_dir=tests_dir, alt_output_dir=rollout / "output")
    soffice = load_config(env).config.soffice
    _say_if_no_libreoffice(rollout, soffice)
    server = None
    if not own:
        server = start_simulator(env)
        print(f"no judge endpoint configured: using the built-in simulator at {server.url} ({simulator_note(env)})")
    try:
        _copy_agent_logs(rollout, logs_dir)
        doc = main_run(paths, load_config(env), start=time.monotonic())
    except KeyboardInterrupt:  # main_run wrote the cut run's documents; the dispatcher prints one line, exit 130
        if paths.result_json.is_file():
            print(f"interrupted: the result at {paths.result_json} is of a cut run (details.interrupted; rows not "
                  "judged yet are unjudged 'interrupted')")
        raise
    finally:
        if server is not None:
            server.stop()
    _say_outcome(doc, paths.result_json, soffice, simulated=server is not None)
    return exit_status(doc.status if doc is not None else None)


def _say_outcome(doc: ResultDocument | None, result_json: Path, soffice: str | None, *, simulated: bool) -> None:
    """The reward, the hurdle that zeroed it (as ``try`` says it, `core.fatal.zeroed_sentence`), the result path, the
    status line, and under a built-in-simulator run the note ``try`` says (`core.simulated.simulated_note`: none when
    the simulator was never asked, trial 27 P-5)."""
    print(f"reward: {doc.task_score if doc is not None else 0.0}")
    if doc is not None and doc.fatal:
        dumped = doc.model_dump(mode="json", by_alias=True)
        print("fatal: " + zeroed_sentence(fatal_rows(dumped), nothing_delivered=doc.extra_fields.delivery_missing,
                                          unjudged=unjudged_kinds(dumped)))
    print(f"result: {result_json}")
    if doc is None:
        return
    ef = doc.extra_fields
    print(f"status: {doc.status}  coverage: {ef.judge_coverage:.3f}  model calls: {ef.judge_calls}")
    _explain_unrendered(doc, soffice)
    note = simulated_note(judge_called=ef.judge_called, judged_rows=len(doc.results) - ef.judge_unjudged)
    if simulated and note:
        print(note)


def _nothing_listens(env: dict[str, str]) -> str | None:
    """`_endpoint.nothing_listens` for the endpoint the judge resolves from `env` (`_endpoint.resolved_endpoint`):
    the refusal line, or None (not loopback, or it listens)."""
    return nothing_listens(*resolved_endpoint(env))


def _install_line() -> str:
    from cowork_judge.install.verifier_image import DECK_PACKAGES

    return "sudo apt-get install -y --no-install-recommends " + " ".join(p for p in DECK_PACKAGES if p != "chromium")


def _say_if_no_libreoffice(rollout: Path, soffice: str | None) -> None:
    """Before the run: a rollout with a PowerPoint deck on a machine without LibreOffice (the
    soffice the run would use, ``JUDGE_SOFFICE_PATH`` or the usual names) is said up front."""
    from cowork_judge.evidence.capabilities import SOFFICE_CANDIDATES
    from cowork_judge.evidence.kinds import KIND_FAMILY, SUFFIX_KIND
    from cowork_judge._util.procs import configured_tool_problem, resolve_tool

    decks = [f for f in rollout.rglob("*") if KIND_FAMILY.get(SUFFIX_KIND.get(f.suffix.lower(), "")) == "pptx" and f.is_file()]
    if decks and resolve_tool(soffice, *SOFFICE_CANDIDATES) is None:
        problem = configured_tool_problem(soffice) if soffice else None  # trial finding 13: the setting, not the install
        what = f"JUDGE_SOFFICE_PATH is {soffice}, which {problem}" if problem else "LibreOffice (soffice) is not installed here"
        print(f"{what}: the pages of {decks[0].name} cannot be rendered, so the "
              "rows that read them will not be judged and the reward will be that of a degraded run (see below)")


def _explain_unrendered(doc: ResultDocument, soffice: str | None) -> None:
    """After the run: rows left unjudged because a deck could not be rendered (``render_env``),
    what that did to the reward, and how to install the renderer (or, when `soffice` —
    ``JUDGE_SOFFICE_PATH`` — names no usable program, to fix that setting)."""
    from cowork_judge._util.procs import configured_tool_problem

    unrendered = [r for r in doc.results if r.error_kind == "render_env"]
    if not unrendered:
        return
    ef = doc.extra_fields
    cause = (unrendered[0].reason or "").split("): ", 1)[-1]
    print(f"not judged: {ef.judge_unjudged} of {len(doc.results)} rows ({len(unrendered)} need the deck's pages, "
          f"which could not be rendered here: {cause}; the rest depend on those), {ef.judge_unjudged_weight_frac:.0%} of the "
          f"weight. Unjudged rows count as misses, so this reward ({doc.task_score:.4f}, {doc.exit_code}, coverage "
          f"{ef.judge_coverage:.3f}) says nothing about the deck; a fleet masks such results by coverage.")
    problem = configured_tool_problem(soffice) if soffice else None
    if problem is not None:
        print(f"To judge the deck, set JUDGE_SOFFICE_PATH to the soffice program or unset it (it is {soffice}, which "
              f"{problem}; when it is set, the usual install paths are not searched), then run the demo again.")
        return
    print("To judge the deck, install LibreOffice and the fonts decks use (Debian/Ubuntu), then run the demo again:")
    print(f"  {_install_line()}")
    print("  (or set JUDGE_SOFFICE_PATH to an soffice installed elsewhere; docs/development.md)")


def _copy_agent_logs(rollout: Path, logs_dir: Path) -> None:
    source = VerifierLayout.under(rollout).agent_dir
    if source.is_dir():
        shutil.copytree(source, VerifierLayout(logs_dir).agent_dir, dirs_exist_ok=True)
