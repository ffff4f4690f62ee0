"""`RubricVerifier`: the judge as a Harbor 0.26 verifier class, run in the Harbor process on the host.

Load it with ``harbor run … --verifier cowork_judge.harbor:RubricVerifier`` (or ``harbor jobs
regrade … --verifier …``). Per trial (`RubricVerifier.verify`):

1. the task's ``[verifier.env]`` (the step's, then ``--verifier-env``, on top) is resolved from
   the host's environment with Harbor's own ``${VAR}`` / ``${VAR:-default}`` rule
   (`harbor.utils.env.resolve_env_vars`, as Harbor resolves it for ``test.sh``);
2. the task's ``tests/`` (and a step's ``steps/<name>/tests/`` over it) and the trial's agent
   folder (``<trial>/agent``: final message, ``trajectory.json``) are copied from the host into a
   private temp folder (`staging.stage`);
3. ``/app/output``, ``/output`` and the declared artifacts under ``/app`` are downloaded from the
   environment (the only thing the environment is asked for: a ``test -e`` per path, then the
   download);
4. the engine runs there (`staging.run_engine`: ``python -m cowork_judge run``, the command
   ``test.sh`` runs) in its own process, within the task's ``[verifier] timeout_sec``;
5. everything it wrote is published into the trial's verifier folder (`staging.publish`), the
   staged folders named as the trial knows them (``/app``, ``/tests``, ``/logs``:
   `staging.show_trial_paths`), and reward.json's rewards are returned.

Any failure of steps 1–5 (an exception, the time limit, a failed download, a run that left no
reward) writes the error documents instead (`staging.error_reward`: reward 0 with
``judge:scorer_error`` or ``judge:timeout``) and returns ``{"reward": 0.0}``: the trial keeps a
reward and the Harbor process goes on. Only ``JUDGE_SKIP`` raises (`staging.SkippedReward`), as
``test.sh`` mode's ``SKIPPED`` makes Harbor record an error instead of a 0.

Keyword arguments (``--verifier-kwarg name=value``): ``python`` — the interpreter that runs the
engine (default: this one; it needs ``cowork-judge`` with the task's extras, e.g. ``[workflow]``
for deck rendering), ``slots`` — engines at once in this process (default: the CPUs),
``shared_limiter`` — one request limiter for every trial of the job (default true; `staging.JobStore`).
"""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
import time
import traceback
from pathlib import Path, PurePosixPath
from typing import Any

from harbor.models.verifier.result import VerifierResult
from harbor.utils.env import resolve_env_vars
from harbor.verifier.base import BaseVerifier

from cowork_judge.harbor import staging

DELIVERABLE_DIRS = (("/app/output", "output"), ("/output", "alt_output"))
"""Environment folders downloaded for every trial → the staged folder they land in."""


class DownloadFailed(RuntimeError):
    """A deliverable could not be read from the environment (the trial gets the error reward)."""


class RubricVerifier(BaseVerifier):
    """Judge one Harbor trial on the host with cowork-judge (see the module docstring).

    Args:
        python: interpreter for the engine process (default ``sys.executable``).
        slots: engines running at once in this Harbor process (default: the machine's CPUs);
            the first trial's value sizes the shared semaphore.
        shared_limiter: give every engine the job's one limiter store (`staging.JobStore`;
            default on; ``false`` keeps one in-process limiter per trial).
        Everything else: as `harbor.verifier.base.BaseVerifier`.
    """

    def __init__(self, *, python: str | None = None, slots: int | str | None = None, shared_limiter: bool | str = True,
                 **kwargs: Any) -> None:
        kwargs.pop("skip_tests_upload", None)  # a separate verifier's image flag: nothing is uploaded here
        super().__init__(**kwargs)
        self.python = python or sys.executable
        try:
            self.slots = max(1, int(slots)) if slots else None
        except ValueError:
            self.logger.warning("cowork-judge verifier: slots=%r is not a number; using the machine's CPUs", slots)
            self.slots = None
        self.shared_limiter = str(shared_limiter).strip().lower() not in ("0", "false", "no", "off")

    # ------------------------------------------------------------------ settings
    def timeout_sec(self) -> float:
        """The trial's verifier limit: the step's ``[steps.verifier] timeout_sec``, else the task's."""
        config = self.task.config
        if self.step_name is not None:
            step = next((s for s in config.steps or () if s.name == self.step_name), None)
            if step is not None and step.verifier.timeout_sec is not None:
                return float(step.verifier.timeout_sec)
        return float(config.verifier.timeout_sec)

    def resolved_env(self) -> dict[str, str]:
        """The task's ``[verifier.env]`` with the step's and ``--verifier-env`` on top, resolved
        from the host (raises ValueError for a ``${VAR}`` the host does not set)."""
        merged = {**self.task.config.verifier.env, **(self.verifier_env or {}), **self.override_env}
        return resolve_env_vars(merged) if merged else {}

    def tests_sources(self) -> list[Path]:
        """The task's tests folders in Harbor's upload order (a step's own last)."""
        sources = [Path(self.task.paths.tests_dir)]
        if self.step_name is not None:
            sources.append(Path(self.task.paths.step_tests_dir(self.step_name)))
        return sources

    def declared_app_paths(self) -> list[str]:
        """Declared artifact sources under ``/app`` (outside ``/app/output``, downloaded anyway)."""
        config = self.task.config
        entries: list[Any] = list(config.artifacts)
        if self.step_name is not None:
            step = next((s for s in config.steps or () if s.name == self.step_name), None)
            entries += list(step.artifacts) if step is not None else []
        out = []
        for entry in entries:
            source = entry if isinstance(entry, str) else getattr(entry, "source", None)
            if not isinstance(source, str) or ".." in PurePosixPath(source).parts:  # never outside the staged app/
                continue
            if source.startswith("/app/") and not (source.rstrip("/") == "/app/output" or source.startswith("/app/output/")):
                out.append(source.rstrip("/"))
        return out

    # ------------------------------------------------------------------ the trial
    async def verify(self) -> VerifierResult:
        """Judge the trial; always a reward except for ``JUDGE_SKIP`` (see the module docstring)."""
        verifier_dir = Path(self.trial_paths.verifier_dir)
        start = time.monotonic()
        limit = self.timeout_sec()
        budget = max(1.0, limit - max(staging.KILL_MARGIN_SEC, 0.05 * limit))
        try:
            with tempfile.TemporaryDirectory(prefix="cowork-judge-harbor-") as tmp:
                return await self._judge(Path(tmp), verifier_dir, start=start, budget=budget)
        except staging.SkippedReward:
            raise
        except TimeoutError:
            reason = (f"the judge did not finish within the trial's verifier time limit ({limit:.0f} s, "
                      f"stopped at {budget:.0f} s)")
            return self._error(verifier_dir, "judge:timeout", reason, start)
        except DownloadFailed as exc:
            return self._error(verifier_dir, "judge:scorer_error", str(exc), start)
        except Exception as exc:  # noqa: BLE001 - every failure is this trial's error reward, never Harbor's crash
            self.logger.error("cowork-judge verifier: %s", "".join(traceback.format_exception(exc))[-4000:])
            return self._error(verifier_dir, "judge:scorer_error", f"host verifier error: {type(exc).__name__}: {exc}", start)

    async def _judge(self, tmp: Path, verifier_dir: Path, *, start: float, budget: float) -> VerifierResult:
        import asyncio

        try:
            run = await asyncio.wait_for(self._stage_and_run(tmp, verifier_dir, start=start, budget=budget), timeout=budget)
        except asyncio.TimeoutError as exc:  # the same class as TimeoutError from Python 3.11
            raise TimeoutError from exc
        if run.returncode is None:
            raise TimeoutError
        rewards = staging.read_rewards(verifier_dir)
        if rewards is None:
            return self._error(verifier_dir, "judge:scorer_error",
                               f"the judge exited with status {run.returncode} without writing a reward "
                               "(see test-stdout.txt)", start)
        return VerifierResult(rewards=rewards)

    async def _stage_and_run(self, tmp: Path, verifier_dir: Path, *, start: float, budget: float) -> staging.EngineRun:
        """Stage the trial, download the deliverables, run the engine in a slot, publish what it wrote."""
        import asyncio

        env = staging.judge_environment(self.resolved_env(), os.environ)
        if self.shared_limiter and not env.get("JUDGE_LIMITER_URL"):  # a task's own store wins
            url = await asyncio.to_thread(staging.job_store.url, self.python)
            if url:
                env["JUDGE_LIMITER_URL"] = url
        folders = staging.stage(tmp / "trial", self.tests_sources(), Path(self.trial_paths.agent_dir))
        await self._download(folders)
        async with staging.judge_slots(self.slots):
            left = budget - (time.monotonic() - start)
            run = await staging.run_engine(staging.judge_command(self.python, folders), env, cwd=tmp,
                                           output=folders.verifier / "test-stdout.txt", timeout_sec=left)
        staging.show_trial_paths(folders)
        staging.publish(folders.verifier, verifier_dir)
        return run

    async def _download(self, folders: staging.TrialFolders) -> None:
        """Download the deliverables into the staged folders; links are dropped afterwards."""
        wanted: list[tuple[str, Path]] = [(src, getattr(folders, attr)) for src, attr in DELIVERABLE_DIRS]
        wanted += [(src, folders.app / src.removeprefix("/app/")) for src in self.declared_app_paths()]
        for source, dest in wanted:
            kind = await self._kind(source)  # the environment's own failure: a verifier exception
            try:
                if kind == "dir":
                    await self.environment.download_dir(source_dir=source, target_dir=dest)
                elif kind == "file":
                    await self.environment.download_file(source_path=source, target_path=dest)
            except Exception as exc:  # noqa: BLE001 - named in the error reward
                raise DownloadFailed(f"cannot download {source} from the environment "
                                     f"({type(exc).__name__}: {exc}); nothing was judged") from exc
            dropped = staging.drop_links(dest) if dest.is_dir() else []
            if dropped:
                self.logger.warning("cowork-judge verifier: links in %s not judged on the host: %s", source,
                                    ", ".join(dropped[:10]))

    async def _kind(self, source: str) -> str | None:
        """'dir', 'file' or None (absent) for a path in the environment."""
        quoted = shlex.quote(source)
        result = await self.environment.exec(
            command=f"if [ -d {quoted} ]; then echo dir; elif [ -f {quoted} ]; then echo file; else echo none; fi",
            timeout_sec=60)
        if result.return_code != 0:
            raise RuntimeError(f"exit {result.return_code}: {(result.stderr or result.stdout or '').strip()[:300]}")
        word = (result.stdout or "").strip().splitlines()[-1:] or ["none"]
        return {"dir": "dir", "file": "file"}.get(word[0])

    def _error(self, verifier_dir: Path, exit_code: str, reason: str, start: float) -> VerifierResult:
        self.logger.warning("cowork-judge verifier: %s → reward %s (%s)", exit_code, staging.ERROR_REWARD, reason)
        staging.error_reward(verifier_dir, exit_code=exit_code, reason=reason, seconds=time.monotonic() - start)
        return VerifierResult(rewards={"reward": staging.ERROR_REWARD})
