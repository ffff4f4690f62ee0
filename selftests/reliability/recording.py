"""A simulator that also keeps every chat-completions request body it received."""

from __future__ import annotations

import json
from typing import Any

from cowork_judge.sim import SimServer


class RecordingSim(SimServer):
    """`SimServer` + ``bodies``: the decoded JSON of every chat-completions request."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bodies: list[dict[str, Any]] = []

    def handle_chat(self, h, body: bytes, start_s: float, seq: int) -> None:  # noqa: ANN001 - SimServer's signature
        try:
            self.bodies.append(json.loads(body or b"null"))
        except ValueError:
            self.bodies.append({"unreadable": body[:200].decode("utf-8", "replace")})
        super().handle_chat(h, body, start_s, seq)
