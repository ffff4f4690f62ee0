"""The last-resort result document that test.sh writes when no judge could run.

It is the engine's own template (``cowork_judge/schemas/fallback-result.json``, generated
by `cowork_judge.core.fold.fallback_document` and kept identical to it by a test): the
document of a run that failed before judging (status error, reward 0, every
``extra_fields`` key), with ``exit_code``/``exit_reason`` (and the version fields) filled
in by test.sh line by line. One source, three writers: the engine's stdlib fallback
(`run.outputs.write_fallback`), test.sh's failure path, and the fold itself.
"""

from __future__ import annotations

from importlib import resources

FALLBACK_RESOURCE = "schemas/fallback-result.json"


def fallback_text() -> str:
    """The packaged template's text, byte for byte (what templates/test.sh embeds).

    Raises:
        OSError: the package data is missing (a broken installation).
    """
    return resources.files("cowork_judge").joinpath(FALLBACK_RESOURCE).read_text(encoding="utf-8")


def fallback_exit_message_text() -> str:
    """The original 1.3.6's ``reward_exit_message.json`` for the last-resort document, as
    templates/test.sh embeds it (2-space indent; test.sh fills in ``exit_code``,
    ``exit_reason``, ``judge_model``, ``metric_id`` and ``judge_seconds`` line by line).

    Raises:
        OSError: the package data is missing (a broken installation).
    """
    import json

    from cowork_judge.core.legacy import exit_message

    return json.dumps(exit_message(json.loads(fallback_text())), indent=2, ensure_ascii=False) + "\n"
