"""The exceptions the ``openai`` SDK raises, built without a network (for classification tables)."""

from __future__ import annotations

import openai

HTTPX = getattr(openai._exceptions, "httpx2", None) or openai._exceptions.httpx  # the SDK's HTTP library
REQUEST = HTTPX.Request("POST", "http://judge.invalid/v1/chat/completions")
STATUS_CLASSES = {400: openai.BadRequestError, 401: openai.AuthenticationError, 403: openai.PermissionDeniedError,
                  404: openai.NotFoundError, 409: openai.ConflictError, 422: openai.UnprocessableEntityError,
                  429: openai.RateLimitError}


def status_error(status: int, message: str, *, code: str | None = None, err_type: str | None = None, **extra: object):
    """What the SDK raises for an HTTP error answer with an OpenAI-style error body."""
    body = {"message": message, "type": err_type, "param": None, "code": code, **extra}
    response = HTTPX.Response(status, request=REQUEST, json={"error": body})
    cls = STATUS_CLASSES.get(status, openai.InternalServerError if status >= 500 else openai.APIStatusError)
    return cls(f"Error code: {status} - {{'error': {body!r}}}", response=response, body=body)


def stream_error(message: str, *, code: str | None = None, err_type: str | None = None):
    """What the SDK raises for ``data: {"error": …}`` inside a 200 SSE stream."""
    return openai.APIError(message, REQUEST, body={"message": message, "type": err_type, "param": None, "code": code})
