"""The evidence copy kept beside the verifier outputs: layout kept, JSON redacted, no PDFs,
page images within the size cap (what does not fit is counted, not silently lost)."""

from __future__ import annotations

import json

from cowork_judge.evidence.keep import keep_evidence
from cowork_judge.safety.redact import Redactor

KEY = "sk-kept-evidence-secret-0123456789"


def test_the_copy_is_redacted_capped_and_in_the_same_layout(tmp_path):
    src, dst = tmp_path / "evidence", tmp_path / "verifier" / "evidence"
    (src / "deck.pptx" / "pages").mkdir(parents=True)
    (src / "pages" / "deck.pptx").mkdir(parents=True)
    (src / "index.json").write_text(json.dumps({"decks": [{"deck": "deck.pptx"}]}))
    (src / "deck.pptx" / "digest.json").write_text(json.dumps({"slides": [f"the agent wrote {KEY} on slide 1"]}))
    (src / "deck.pptx" / "render.pdf").write_bytes(b"%PDF-1.4 big")
    for n in (1, 2, 3):
        (src / "pages" / "deck.pptx" / f"page-00{n}.png").write_bytes(b"\x89PNG" + b"x" * 1000)
    kept = keep_evidence(src, dst, Redactor([], [KEY]), max_bytes=2500)
    assert (dst / "index.json").is_file() and not (dst / "deck.pptx" / "render.pdf").exists()
    digest = (dst / "deck.pptx" / "digest.json").read_text()
    assert KEY not in digest and "[REDACTED]" in digest and json.loads(digest)
    assert sorted(p.name for p in (dst / "pages" / "deck.pptx").iterdir()) == ["page-001.png", "page-002.png"]
    assert kept.images_dropped == 1 and kept.bytes <= 2500


def test_no_index_no_copy(tmp_path):
    assert keep_evidence(tmp_path / "nothing", tmp_path / "dst", Redactor()).files == 0
    assert not (tmp_path / "dst").exists()
