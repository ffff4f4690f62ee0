"""Agentic judging: rows that an agent judges by reading the deliverables (SPEC §10).

`dispatch.judge_agentic` is the segment entry used by the router; `registry` is the one
table of backends (name → implementation + cost model); `scheduler` runs blocks with
batches, concurrency, jitter, retries, resplit and the deadline for every backend;
`openai_agent` is the built-in backend. Importing this package loads nothing else.
"""
