"""The guard: a deterministic scan of everything the agent wrote that the judge reads.

It finds text addressed to the evaluator, fake protocol and master-key answers, in every
channel (final message, deliverables' text, file names, deck text, invisible deck text,
alt text), and records them in the result document's ``guard`` block; ``JUDGE_GUARD=
penalize`` scores a flagged sample 0 (`cowork_judge.core.fold`). `cowork_judge.safety.spotlight` marks
untrusted text in every prompt with a per-run boundary. Modules: the typed documents are the core's
(`cowork_judge.core.findings`, re-exported here); `lexicon` (patterns), `discourse` (a finding read in its context: quoted,
conditional, an example; the task prompt's topics), `scan` (pure scanning), `deck_text` (a
deck's visible and invisible text, through the evidence's structure reader), `gather`
(reading the delivery).
"""

from cowork_judge.core.findings import Finding, GuardMode, GuardReport

__all__ = ["Finding", "GuardMode", "GuardReport"]
