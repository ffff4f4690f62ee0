"""Code methods over the agent's ATIF trajectory: rows about what the agent did, zero model calls.

Each reads the trajectory the run parsed once (`Delivery.trajectory`, `segment.trajectory`)
and cites the step numbers it decided on. A trajectory that is absent or cannot be read
leaves the row unjudged ``trajectory_missing`` (`TrajectoryMissing`): the row is about the
agent's process and there is nothing to judge it on (in a separate-verifier task the collect
hook may be missing: `lint-rubric` says so, L060). So does a `command_succeeded` row whose
matching commands record no exit status (a terminal agent such as terminus records none):
the judge cannot tell, and says so rather than guess.

Regular expressions run in a killable child (`safety.saferegex`), like `regex_match`; a
trajectory whose texts exceed what one search scans is a read limit (`code_methods.files.ReadLimit`:
judged against the agent, the reason says so), as for the deliverables.
"""

from __future__ import annotations

import json
import re
from typing import Any

from cowork_judge.code_methods import globs
from cowork_judge.code_methods.control_chars import control_char_errors
from cowork_judge.code_methods.files import MessageUnreadable, ReadLimit, refuse
from cowork_judge.core.error_kinds import JudgeFailure
from cowork_judge.safety import saferegex
from cowork_judge.segment.code_context import CodeContext
from cowork_judge.segment.trajectory import Trajectory

REGEX_TIMEOUT_SEC = 30.0
"""Longest one regular-expression search over the trajectory may run (seconds)."""
MAX_CITED = 8
"""Step numbers named in a reason at most (the rest are counted)."""


class TrajectoryMissing(JudgeFailure):
    """The row needs the agent's ATIF trajectory, or something it does not record: unjudged
    ``trajectory_missing``, never a guess."""

    kind = "trajectory_missing"


def _trajectory(ctx: CodeContext) -> Trajectory:
    traj = ctx.delivery.trajectory
    if traj is None:
        unread = "trajectory.json" in ctx.delivery.unreadable
        raise TrajectoryMissing("the agent's trajectory.json exists but could not be read as ATIF" if unread else
                                "no ATIF trajectory (trajectory.json) in the agent logs: nothing shows what the agent did")
    return traj


def _steps(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:MAX_CITED])
    more = f" and {len(numbers) - MAX_CITED} more" if len(numbers) > MAX_CITED else ""
    return f"step{'s' if len(numbers) != 1 else ''} {shown}{more}"


def _search_all(ctx: CodeContext, pattern: str, texts: list[tuple[str, str]]) -> set[str]:
    """Names of the `texts` where `pattern` matches (case-insensitive).

    Raises:
        ReadLimit: more text than one search scans (`saferegex.MAX_INPUT_CHARS`): a trajectory
            that large is the agent's doing, judged against it like the deliverables' limits.
    """
    if not texts:
        return set()
    total = sum(len(t) for _, t in texts)
    if total > saferegex.MAX_INPUT_CHARS:
        raise ReadLimit(f"the trajectory's texts hold {total} characters, more than one search scans",
                        limit=f"{saferegex.MAX_INPUT_CHARS // (1024 * 1024)} Mi characters per search")
    timeout = max(0.1, min(REGEX_TIMEOUT_SEC, ctx.settings.code_timeout_sec, ctx.deadline.remaining()))
    found = saferegex.search(pattern, texts, flags=re.IGNORECASE, timeout_sec=timeout, max_matches=len(texts) * 50)
    return {name for name, _, _ in found}


def regex_param_errors(params: dict[str, Any]) -> list[str]:
    """Patterns (`pattern`, `error_patterns`) that do not compile, an empty `pattern`, and an `error_patterns`
    entry that matches any text (``""``, ``"x*"``: it matches every observation, so `no_step_errored` fails
    on every rollout that has one), a control character in a pattern (a JSON ``"\\b"`` is a backspace:
    `control_char_errors`, trial 31 P-5): refused before the row runs."""
    errors = control_char_errors("pattern", params.get("pattern"), regex=True)
    errors += [line for p in params.get("error_patterns") or [] for line in control_char_errors("error_patterns", p, regex=True)]
    patterns = [params.get("pattern")] + list(params.get("error_patterns") or [])
    for p in patterns:
        if isinstance(p, str):
            try:
                re.compile(p, re.IGNORECASE)
            except (re.error, RecursionError, OverflowError) as exc:
                errors.append(f"pattern {p!r:.60} is not a valid regular expression: {exc}")
    if "pattern" in params and params.get("pattern") == "":
        errors.append("parameter 'pattern' must not be empty (it matches every command)")
    if not errors:
        errors = [f"parameter 'error_patterns': {p!r:.60} matches any text, so every observation (the row fails on every "
                  "rollout with one): write the error text to look for, e.g. \"^ERROR:\" or \"Traceback\""
                  for p in params.get("error_patterns") or [] if isinstance(p, str) and _matches_any_text(p)]
    return errors


def _matches_any_text(pattern: str) -> bool:
    """True when `pattern` (compiled) matches an empty text and a plain word alike: it matches every
    observation (``""``, ``"x*"``, ``"(error)?"``), unlike an anchored ``"^$"``."""
    return all(re.search(pattern, text, re.IGNORECASE) for text in ("", "ok"))


def tool_param_errors(params: dict[str, Any]) -> list[str]:
    """What `tool_called` refuses (the types being right; `params` over its defaults): an empty ``name`` (no tool
    is called that: the row never hits), a ``min_count`` below 1 (every rollout would meet it). For `lint-rubric`
    (M002) and the runner (``code_params``)."""
    errors = []
    name, count = params.get("name"), params.get("min_count")
    if isinstance(name, str) and not name.strip():
        errors.append(f"parameter 'name' must name a tool, got {name!r:.20} (no call has that name: the row never hits); "
                      "write the tool's ATIF function_name, e.g. \"bash\"")
    if isinstance(count, int) and not isinstance(count, bool) and count < 1:
        errors.append(f"parameter 'min_count' must be at least 1, got {count}")
    return errors


STEP_SOURCES = ("agent", "user", "system", "all")
"""The ``source`` values of `step_count_at_most`: an ATIF step's ``source``, or ``all``."""


def step_param_errors(params: dict[str, Any]) -> list[str]:
    """What `step_count_at_most` refuses (the types being right; `params` over its defaults): a ``max_steps``
    below 0, a ``source`` that is no ATIF step source (trial 25 P-6: ``"assistant"``, the chat API's word, was a
    ``code_error`` on every rollout and lint said nothing). For `lint-rubric` (M002) and the runner (``code_params``)."""
    errors = []
    most, source = params.get("max_steps"), params.get("source")
    if isinstance(most, int) and not isinstance(most, bool) and most < 0:
        errors.append(f"parameter 'max_steps' must be at least 0, got {most}")
    if isinstance(source, str) and source not in STEP_SOURCES:
        hint = " (ATIF calls the model's steps 'agent')" if source.strip().lower() in ("assistant", "model", "ai") else ""
        errors.append(f"parameter 'source' must be 'agent', 'user', 'system' or 'all', got {source!r:.40}{hint}")
    return errors


def tool_called(ctx: CodeContext, name: str, min_count: int = 1, args_contain: str | None = None) -> tuple[bool, str, dict[str, Any]]:
    """Hit when the agent called tool `name` (case-insensitive, the ATIF ``function_name``)
    at least `min_count` times, counting only calls whose JSON arguments contain
    `args_contain` (case-insensitive) when it is given.

    Raises:
        TrajectoryMissing: no readable trajectory.
    """
    refuse(tool_param_errors({"name": name, "min_count": min_count}))
    traj = _trajectory(ctx)
    needle = (args_contain or "").casefold()
    hits = [s.number for s, c in traj.tool_calls() if c.name.casefold() == name.casefold()
            and needle in json.dumps(dict(c.arguments), ensure_ascii=False, default=str).casefold()]
    what = f"{name!r}" + (f" with arguments containing {args_contain!r}" if args_contain else "")
    if len(hits) >= min_count:
        return True, f"{what} called {len(hits)} time(s) ({_steps(hits)})", {}
    called = sorted({c.name for _, c in traj.tool_calls()})
    return False, (f"{what} called {len(hits)} time(s), fewer than {min_count}; tools called: "
                   f"{', '.join(called[:12]) or 'none'}"), {}


_SEGMENT_SPLIT = re.compile(r"(\|\||&&|[;|\n])")
_PIPEFAIL = re.compile(r"\bpipefail\b")
_COMMENT = re.compile(r"(^|\s)#.*$")
_ECHO_ONLY = re.compile(r"^\s*(#|(echo|printf)\b)")
_FORCED = re.compile(r"\|\|\s*(true\b|:|echo\b|printf\b|exit\s+0\b)|[;\n]\s*(true|:|exit\s+0|echo\b[^;&|\n]*|printf\b[^;&|\n]*)\s*$")
"""A command line whose exit status is forced to 0 (``|| true``, ``|| echo …``, ``; true`` or ``; echo …`` at
the end): its status says nothing about the command it guards (trial 10 F5)."""


def _run_segments(command: str) -> list[tuple[str, bool]]:
    """The parts of a command line that run something, each with whether it pipes into the next
    (a ``|`` follows it): split at ``;``, ``&&``, ``||``, ``|`` and newlines; of a part that prints
    (``echo``, ``printf``) only the command word is kept and a comment (``#``) is left out, so a
    pattern written in an ``echo`` is no run of the command (trial 10 F5)."""
    pieces = _SEGMENT_SPLIT.split(command)
    out = []
    for i in range(0, len(pieces), 2):
        part = _COMMENT.sub("", pieces[i])
        piped = i + 1 < len(pieces) and pieces[i + 1] == "|"
        printed = _ECHO_ONLY.match(part)
        if part.strip() and printed is None:
            out.append((part, piped))
        elif printed is not None and printed.group(2):  # the printing command itself, not what it prints
            out.append((printed.group(2), piped))
    return out


def command_succeeded(ctx: CodeContext, pattern: str) -> tuple[bool, str, dict[str, Any]]:
    """Hit when the LAST run of a command matching regular expression `pattern` (case-insensitive,
    searched in each tool call's command line: ``command``, ``cmd``, ``keystrokes``…, outside parts
    that only ``echo``/``printf`` or comment) exited 0 and its status was not forced.

    The last matching call whose status is recorded decides (trial 10 F5: an earlier passing run
    does not hide a later failing one). A miss when no command matches, when it exited non-zero,
    or when its command line forces the status (``|| true``, ``|| echo``, ``; true``). A status 0
    of a matching command that pipes into another (``pytest | tee log``) is the pipeline's last
    command's, so it decides nothing unless the line sets ``pipefail``. Each call's
    status is `TrajectoryStep.exit_status`: the tool's structured status wins over text, and a
    text status the command line itself prints, or conflicting statuses, are unclear.

    Raises:
        TrajectoryMissing: no readable trajectory; or commands match but none of them records
            an exit status (the judge cannot tell whether they succeeded); or the deciding call's
            status is unclear (trial 9 F10: "exit status unclear"), or it is a 0 of a pipeline the
            matching command only feeds (no ``pipefail``).
    """
    traj = _trajectory(ctx)
    calls = {f"{s.number}:{k}": (s, c) for k, (s, c) in enumerate(traj.tool_calls()) if c.command()}
    segments = {f"{key}#{n}": seg for key, (_, c) in calls.items() for n, seg in enumerate(_run_segments(c.command() or ""))}
    found = _search_all(ctx, pattern, [(name, text) for name, (text, _) in segments.items()])
    matched = {name.split("#")[0] for name in found}
    if not matched:
        return False, f"no command matches /{pattern}/ outside echo/comments ({len(calls)} command(s) ran)", {}
    unknown: list[int] = []
    for key in sorted(matched, key=lambda k: int(k.split(":")[1]), reverse=True):
        step, call = calls[key]
        code, why = step.exit_status(call)
        if why:
            raise TrajectoryMissing(f"the last run of a command matching /{pattern}/ (step {step.number}) has an "
                                    f"unclear exit status: {why}")
        if code is None:
            unknown.append(step.number)
            continue
        forced = _FORCED.search(call.command() or "")
        if forced:
            return False, (f"the last run of a command matching /{pattern}/ (step {step.number}) forces its exit "
                           f"status ({forced.group(0).strip()!r}): not a success"), {}
        piped = [segments[n][0].strip() for n in found if n.split("#")[0] == key and segments[n][1]]
        if code == 0 and piped and len(piped) == sum(n.split("#")[0] == key for n in found) \
                and not _PIPEFAIL.search(call.command() or ""):
            raise TrajectoryMissing(f"the last run of a command matching /{pattern}/ (step {step.number}) pipes into "
                                    "another command, so the exit status 0 is the pipeline's last command's, not its "
                                    f"own ({piped[0][:60]!r} | …; without `set -o pipefail`): whether it succeeded "
                                    "cannot be told")
        if code == 0:
            return True, f"the last run of a command matching /{pattern}/ exited 0 (step {step.number})", {}
        return False, f"the last run of a command matching /{pattern}/ exited {code} (step {step.number})", {}
    raise TrajectoryMissing(f"commands matching /{pattern}/ ran ({_steps(sorted(unknown))}) but the trajectory records no "
                            "exit status for them: whether they succeeded cannot be told")


def no_step_errored(ctx: CodeContext, error_patterns: list[str] | None = None) -> tuple[bool, str, dict[str, Any]]:
    """Hit when no step errored (`segment.trajectory.TrajectoryStep.errored`: a failure flagged in
    an ``extra``, Harbor's ``[error] tool reported failure``, a non-zero exit status), and no
    observation matches any of `error_patterns` (regular expressions, case-insensitive; e.g.
    ``"^ERROR:"`` or ``"Traceback \\(most recent call last\\)"``).

    Raises:
        TrajectoryMissing: no readable trajectory.
    """
    traj = _trajectory(ctx)
    bad: dict[int, str] = {}
    for step in traj.steps:
        reason = step.errored()
        if reason:
            bad.setdefault(step.number, reason)
    texts = [(f"{s.number}", o.text) for s in traj.steps for o in s.observations if o.text]
    for p in error_patterns or []:
        for name in _search_all(ctx, p, texts):
            bad.setdefault(int(name), f"an observation matches /{p}/")
    if not bad:
        return True, f"no step errored ({len(traj.steps)} steps)", {}
    first = min(bad)
    return False, f"{_steps(sorted(bad))} errored (step {first}: {bad[first]})", {}


def step_count_at_most(ctx: CodeContext, max_steps: int, source: str = "agent") -> tuple[bool, str, dict[str, Any]]:
    """Hit when the trajectory has at most `max_steps` steps of `source` (``agent``, ``user``,
    ``system``, or ``all``).

    Raises:
        TrajectoryMissing: no readable trajectory.
    """
    refuse(step_param_errors({"max_steps": max_steps, "source": source}))
    traj = _trajectory(ctx)
    n = sum(1 for s in traj.steps if source == "all" or s.source == source)
    what = "steps" if source == "all" else f"{source} steps"
    return n <= max_steps, f"{n} {what} ({'within' if n <= max_steps else 'over'} the limit of {max_steps})", {}


def _path_matches(glob: str, path: str) -> bool:
    """Whether a path the agent wrote (absolute or relative) is named by `glob`: a glob without
    ``/`` matches the file name; with ``/``, the path's tail (``output/*.md`` names
    ``/app/output/a.md``)."""
    rel = path.strip().lstrip("/")
    segs = rel.split("/")
    return any(globs.matches(glob, "/".join(segs[i:])) for i in range(len(segs)))


def glob_param_errors(params: dict[str, Any]) -> list[str]:
    """What `file_written_before_final` refuses in its `glob` at run time (the type being
    right): an empty glob or one with ``..`` (`globs.check_glob`; a path the agent wrote may be
    absolute, so ``/app/output/…`` is a glob here). For `lint-rubric` (M002) and the runner."""
    glob = params.get("glob")
    if not isinstance(glob, str):
        return []
    try:
        globs.check_glob(glob)
    except ValueError as exc:
        return [f"parameter 'glob': {exc}"]
    return []


def file_written_before_final(ctx: CodeContext, glob: str) -> tuple[bool, str, dict[str, Any]]:
    """Hit when a tool call wrote a file matching `glob` (`ToolCall.written_paths`: a writing
    tool's path, an ``apply_patch`` file, a shell redirect) in a step BEFORE the step of the
    agent's final message (the last agent step with text). With no final message, any step
    counts.

    Raises:
        TrajectoryMissing: no readable trajectory.
        MessageUnreadable: the steps were read but the run found the final message unreadable in them
            (``trajectory.json`` in `Delivery.unreadable`: a step that may hide it, trial 21 P-4), so the step
            "before" is measured from is unknown: unjudged ``delivery_unreadable``, never a guess.
    """
    refuse(glob_param_errors({"glob": glob}))
    traj = _trajectory(ctx)
    if "trajectory.json" in ctx.delivery.unreadable:
        raise MessageUnreadable(f"the final message could not be read: {ctx.delivery.unread_note('trajectory.json')}; "
                                "so the step it was given at is unknown")
    final = traj.final_message_step()
    limit = final.number if final is not None else None
    written = [(s.number, p) for s, c in traj.tool_calls() for p in c.written_paths() if _path_matches(glob, p)]
    before = [(n, p) for n, p in written if limit is None or n < limit]
    at = f"the final message (step {limit})" if limit is not None else "the end (no final message)"
    if before:
        n, p = before[0]
        return True, f"{p!r} written at step {n}, before {at}", {}
    if written:
        return False, f"files matching {glob!r} were written only at or after {at} ({_steps([n for n, _ in written])})", {}
    return False, f"no tool call wrote a file matching {glob!r}", {}


__all__ = ["STEP_SOURCES", "TrajectoryMissing", "command_succeeded", "file_written_before_final", "glob_param_errors",
           "no_step_errored", "regex_param_errors", "step_count_at_most", "step_param_errors", "tool_called",
           "tool_param_errors"]
