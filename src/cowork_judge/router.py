"""Router: dispatch each row to the segment its `judge_method` names.

This first version knows one segment, the agentic judge. Rows meant for `code` or
`workflow` are never given to the agent: they are unjudged (`code_missing` /
`workflow_missing`) until those segments exist.
"""

from __future__ import annotations

from collections.abc import Sequence

from cowork_judge.agentic import judge_agentic
from cowork_judge.context import RunContext
from cowork_judge.rubric import Criterion
from cowork_judge.verdicts import Verdict


def route(criteria: Sequence[Criterion], ctx: RunContext) -> dict[str, Verdict]:
    """Judge every row by its method; returns exactly one verdict per row."""
    verdicts: dict[str, Verdict] = {}
    agentic = [c for c in criteria if c.judge_method == "agentic"]
    for c in criteria:
        if c.judge_method == "code":
            verdicts[c.id] = Verdict.unjudged(c.id, "code_missing", "the code segment is not available", method="code")
        elif c.judge_method == "workflow":
            verdicts[c.id] = Verdict.unjudged(c.id, "workflow_missing", "the workflow segment is not available", method="workflow")
    verdicts.update(judge_agentic(agentic, ctx))
    return {c.id: verdicts[c.id] for c in criteria}
