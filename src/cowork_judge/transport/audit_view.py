"""How model requests are written to the audit folder: image data replaced by its size."""

from __future__ import annotations

import json
from typing import Any


def audit_view(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` as the audit stores them: every ``image_url`` part's data replaced by
    ``<N chars of image data>``; the result is plain JSON (non-JSON values as strings)."""
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            content = [
                {"type": "image_url", "image_url": {"url": f"<{len(str((p.get('image_url') or {}).get('url', '')))} chars of image data>"}}
                if isinstance(p, dict) and p.get("type") == "image_url" else p
                for p in content
            ]
        out.append({**m, "content": content})
    plain: list[dict[str, Any]] = json.loads(json.dumps(out, default=str))  # JSON types only
    return plain
