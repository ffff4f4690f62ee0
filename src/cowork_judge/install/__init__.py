"""Installing the judge into a Harbor task: the thin ``test.sh``, ``init`` and ``exit-message``.

`template` locates ``templates/test.sh`` and its generated parts, `exit_messages` is the
one table that turns verifier logs into an ``exit_code``, `fallback` is the last-resort
result document, and `taskinit` merges the verifier blocks into a task's ``task.toml``.
"""
