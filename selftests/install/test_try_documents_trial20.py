"""`try`'s "documents" list names every document of /logs/verifier it kept (trial 20 P-4): judge_verdict.json,
reward_exit_message.json and the evidence/ and judge/ folders too, when present; never one that is absent."""

from __future__ import annotations

from pathlib import Path

from cowork_judge.install.dryrun import read_outcome


def test_documents_name_the_verdict_the_exit_message_and_the_folders(tmp_path: Path) -> None:
    verifier = tmp_path / "verifier"
    (verifier / "evidence" / "pages").mkdir(parents=True)
    (verifier / "judge").mkdir()
    for name in ("reward.txt", "result.json", "judge_verdict.json", "reward_exit_message.json"):
        (verifier / name).write_text("{}\n" if name.endswith(".json") else "0.5\n")
    docs = read_outcome(verifier).documents
    for name in ("reward.txt", "result.json", "judge_verdict.json", "reward_exit_message.json", "evidence/", "judge/"):
        assert docs.get(name) == verifier / name.rstrip("/"), (name, docs)
    (verifier / "judge").rmdir()
    (verifier / "reward_exit_message.json").unlink()
    docs = read_outcome(verifier).documents
    assert "judge/" not in docs and "reward_exit_message.json" not in docs and "reward.json" not in docs
