"""The run's log: ``judge.log`` in the verifier folder and stderr, every line redacted
(`redact.RedactingFilter`), for the length of one run."""

from __future__ import annotations

import logging
import sys

from cowork_judge.safety.redact import RedactingFilter, Redactor
from cowork_judge.run.paths import RunPaths

log = logging.getLogger("cowork_judge")


def start(paths: RunPaths, redactor: Redactor) -> list[logging.Handler]:
    """Attach the run's handlers (``judge.log``, stderr) to the ``cowork_judge`` logger; returns them for `stop`."""
    handlers: list[logging.Handler] = []
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(message)s")
    try:
        paths.verifier_dir.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(paths.judge_log, mode="w", encoding="utf-8"))
    except OSError:
        pass
    handlers.append(logging.StreamHandler(sys.stderr))
    for h in handlers:
        h.setFormatter(fmt)
        h.addFilter(RedactingFilter(redactor))
        log.addHandler(h)
    log.setLevel(logging.INFO)
    log.propagate = False
    return handlers


def stop(handlers: list[logging.Handler]) -> None:
    """Detach and close the handlers `start` attached (never raises)."""
    for h in handlers:
        log.removeHandler(h)
        try:
            h.close()
        except Exception:
            pass
