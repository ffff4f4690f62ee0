"""Regular expressions from untrusted places, run where a runaway one can be killed.

A pattern like ``^(a+)+$`` on ``"a"*60 + "!"`` backtracks for hours, and CPython's
``re`` engine holds the GIL while it does: no thread-based timeout (nor a watchdog
thread) can stop it. Searches therefore run in a short-lived child process (``python
-I``) that is killed with its process group at the timeout (`cowork_judge._util.procs`).
Cost: one interpreter start (≈ 20–40 ms) per call.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence

from cowork_judge._util.procs import run_command

MAX_INPUT_CHARS = 64 * 1024 * 1024
"""Total characters sent to one search (callers cap each file far below this)."""

_CHILD = r"""
import json, re, sys
job = json.loads(sys.stdin.read())
rx = re.compile(job["pattern"], job["flags"])
out = []
for name, text in job["texts"]:
    if job["lines"]:
        for n, line in enumerate(text.splitlines(), start=1):
            if rx.search(line):
                out.append([name, n, line[:300]])
                if len(out) >= job["max"]:
                    break
    else:
        m = rx.search(text)
        if m:
            out.append([name, 0, m.group(0)[:300]])
    if len(out) >= job["max"]:
        break
sys.stdout.write(json.dumps(out))
"""


class RegexTimeout(TimeoutError):
    """The search ran past its time limit (the pattern backtracks catastrophically)."""


def search(
    pattern: str,
    texts: Sequence[tuple[str, str]],
    *,
    flags: int = 0,
    timeout_sec: float = 10.0,
    max_matches: int = 1,
    lines: bool = False,
) -> list[tuple[str, int, str]]:
    """Search `texts` (``(name, text)`` pairs) for `pattern` in a killable child process.

    Args:
        lines: match line by line (grep); otherwise search each whole text once.
        max_matches: stop after this many matches in total.

    Returns:
        ``(name, line number or 0, matched text ≤ 300 chars)`` per match, in input order.

    Raises:
        re.error: the pattern does not compile (checked here, before any child starts).
        RegexTimeout: the search took longer than `timeout_sec` seconds.
        ValueError: more than `MAX_INPUT_CHARS` characters of input.
    """
    re.compile(pattern, flags)
    total = sum(len(t) for _, t in texts)
    if total > MAX_INPUT_CHARS:
        raise ValueError(f"{total} characters is more than one search may scan ({MAX_INPUT_CHARS})")
    job = json.dumps({"pattern": pattern, "flags": flags, "texts": list(texts), "max": max_matches, "lines": lines})
    proc = run_command([sys.executable, "-I", "-S", "-c", _CHILD], timeout_sec=timeout_sec, input_bytes=job.encode("utf-8"))
    if proc.timed_out:
        raise RegexTimeout(f"the regular expression ran past {timeout_sec:g} s (catastrophic backtracking?)")
    if proc.error or proc.returncode != 0:
        raise RuntimeError(f"regex worker failed: {(proc.error or proc.stderr).strip()[-300:]}")
    return [(str(a), int(b), str(c)) for a, b, c in json.loads(proc.stdout)]
