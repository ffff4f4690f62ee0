"""Model transport: the run's one model-call path (`attempts`: the HTTP client, limiter
tickets, classification, retries), one streamed Chat Completions call over the `openai`
client (`chat`), the run's request limiter (`limiter`) and call statistics (`stats`). The
workflow segment's side of it lives in `workflow.caller`. Importing this package loads no
model client."""
