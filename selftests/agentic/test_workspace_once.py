"""What every block's workspace shows alike of the agent's work is laid out once per run
(issue 38): the deliverables and the final message (redacted, repaired) in the run's
deliverables mirror, hard-linked into each block, so the message is redacted once, not once
per block."""

from __future__ import annotations

from testkit import make_ctx

from cowork_judge.agentic.workspace import build_workspace
from cowork_judge.core.rubric import normalize_rubric

ROWS = normalize_rubric([{"id": "A1", "description": "a", "weight": 1, "judge_method": "agentic"}]).criteria


def test_the_final_message_is_written_once_and_linked_into_every_block(tmp_path, monkeypatch):
    ctx = make_ctx(tmp_path, {"report.md": "x"}, final_message="Done with sk-secret-0123 \ud83d")
    seg = ctx.segment()
    redacted = []
    real = type(seg.redactor).redact

    def counting(self, value):
        redacted.append(value)
        return real(self, value).replace("sk-secret-0123", "[REDACTED]")

    monkeypatch.setattr(type(seg.redactor), "redact", counting)
    roots = [build_workspace(f"block-0{n}", ROWS, seg) for n in (1, 2, 3)]
    files = [root / "model_response_text.txt" for root in roots]
    assert {f.read_text(encoding="utf-8") for f in files} == {"Done with [REDACTED] \ufffd"}
    assert len({f.stat().st_ino for f in files}) == 1  # one file, linked into each block
    assert [v for v in redacted if v.startswith("Done with")] == ["Done with sk-secret-0123 \ud83d"]  # redacted once
    assert all((root / "output" / "report.md").read_text() == "x" for root in roots)
