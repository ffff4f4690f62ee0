"""What the segments need from the run, below them: the frozen `SegmentContext` they read
(`segment.segment_context`), the typed delivery (`segment.delivery`), their folders
(`core.layout.RunFolders`) and the audit folder they write to (`segment.audit`).

Code methods, workflows and agentic backends import this room instead of the run's
context or configuration (`run/`), so that, for example, reading the code-method table
(`lint`) does not pull in the run's configuration.
"""
