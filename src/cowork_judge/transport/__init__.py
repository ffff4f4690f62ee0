"""Model transport: the run's call statistics (`stats`), one streamed Chat Completions call
over the `openai` client (`chat`), and the shared, retrying transport of the workflow
segment (`workflow_calls`). Importing this package loads no model client."""
