"""Installing the judge into a Harbor task: the thin ``test.sh``, ``init`` and ``exit-message``.

`template` locates ``templates/test.sh`` and its generated parts, `exit_messages` is the
one table that turns verifier logs into an ``exit_code``, `fallback` is the last-resort
result document, and `taskinit` merges the verifier blocks into a task's ``task.toml``.
The dry run (``cowork-judge try``) is `dryrun` (the task, the rollout, the outcome), `sandbox`
(Harbor's verifier command line in bubblewrap), `wheels` (the judge's wheel and the cached
dependency wheels) and `local_index` (a PEP 503 index on 127.0.0.1 for the sandbox's pip).
"""
