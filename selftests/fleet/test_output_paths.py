"""``summarize``, ``rescore`` and ``report`` write only where they were told, never through a
symbolic link out of it (issue 39, item 1; ``batch`` and ``calibrate``: selftests/batch/test_batch_paths.py).

Each case plants a victim outside the folders a command was given — real symlinks, absolute
and ``..`` names in the documents' own fields — and proves that nothing outside changed."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from fleet.factory import make_doc, verdicts, write

from cowork_judge.commands import main


def _tree(root: Path) -> dict[str, str]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            out[str(p.relative_to(root))] = ("link:" + os.readlink(p) if p.is_symlink() else "dir" if p.is_dir()
                                             else hashlib.sha256(p.read_bytes()).hexdigest())
    return out


@pytest.fixture
def world(tmp_path):
    """A job inside ``job/``, a victim folder beside it holding a real trial, and links from
    the job into the victim (a trial folder, a folder deeper down)."""
    job, victim = tmp_path / "job", tmp_path / "victim"
    for i, task in enumerate(("t1", "t2", "t3")):
        write(job / f"{task}__000000{i}" / "verifier" / "result.json", make_doc(verdicts(r3=0.5)),
              task_id=["../../escape", str(victim / "named"), "x/../../y"][i])
    write(victim / "outside__0000009" / "verifier" / "result.json", make_doc())
    write(victim / "sub" / "inner__0000007" / "verifier" / "result.json", make_doc())
    (victim / "keep.txt").write_text("precious\n")
    (job / "linked__0000008").symlink_to(victim / "outside__0000009")
    (job / "t1__0000000" / "deep").symlink_to(victim / "sub")
    return {"root": tmp_path, "job": job, "victim": victim}


def test_rescore_never_writes_through_a_link_that_leaves_the_folders_it_was_given(world, capsys):
    w = world
    before = _tree(w["victim"])
    pattern = str(w["job"] / "**" / "verifier" / "result.json")  # glob's ** follows links to folders
    assert main(["rescore", pattern, "--threshold", "0.6"]) == 1
    out, err = capsys.readouterr()
    assert _tree(w["victim"]) == before  # nothing written outside job/
    written = [Path(line) for line in out.splitlines()]
    assert len(written) == 3 and all(p.name == "result.rescored.json" and p.is_file() for p in written)
    assert all(os.path.realpath(p).startswith(str(w["job"]) + os.sep) for p in written)
    refused = [line for line in err.splitlines() if "refusing to write" in line]
    assert len(refused) == 2 and all("a symbolic link takes its folder out of" in line for line in refused)
    assert "rescore: 3 documents rescored, 0 rewards changed, 2 failed" in err
    # the same tree as a folder argument: links to folders are followed too (trial 6 F8: a linked trial was
    # skipped without a word), so the linked trial is found and its write refused, on stderr (the link below
    # a trial folder, t1/deep, is not searched: only verifier/ and steps/ are, below a trial)
    assert main(["rescore", str(w["job"]), "--threshold", "0.6", "--force"]) == 1
    assert _tree(w["victim"]) == before
    _, err = capsys.readouterr()
    refused = [line for line in err.splitlines() if "refusing to write" in line]
    assert len(refused) == 1 and "linked__0000008" in refused[0], err
    assert "rescore: 3 documents rescored, 0 rewards changed, 1 failed" in err
    # the linked folder named on its own is the operator's choice: it is rescored where it is
    assert main(["rescore", str(w["job"] / "linked__0000008")]) == 0
    assert (w["victim"] / "outside__0000009" / "verifier" / "result.rescored.json").is_file()
    capsys.readouterr()


@pytest.mark.parametrize("name, problem", [("../x.json", "contains '/'"), ("/abs/x.json", "is an absolute path"),
                                           ("..", "is '..'"), ("a\x00b", "contains a control character"),
                                           ("result.json", "is the stored document"),
                                           ("reward.json", "is a file the judge itself writes")])
def test_rescore_name_is_a_plain_file_name(world, capsys, name, problem):
    before = _tree(world["root"])
    assert main(["rescore", str(world["job"]), "--name", name]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cowork-judge rescore: --name {name!r} {problem}") and len(err.splitlines()) == 1
    assert ": it must be a plain file name other than result.json, reward.txt, reward.json" in err
    assert _tree(world["root"]) == before


def test_rescore_replaces_a_planted_link_at_its_target_never_its_victim(world, capsys):
    w = world
    target = w["job"] / "t2__0000001" / "verifier" / "result.rescored.json"
    target.symlink_to(w["victim"] / "keep.txt")
    assert main(["rescore", str(target.with_name("result.json"))]) == 1  # it exists: refused
    assert "exists (use --force to overwrite)" in capsys.readouterr().err
    assert main(["rescore", str(target.with_name("result.json")), "--force"]) == 0
    capsys.readouterr()
    assert not target.is_symlink() and target.is_file() and (w["victim"] / "keep.txt").read_text() == "precious\n"


def test_summarize_writes_only_its_outputs_whatever_the_documents_say(world, capsys):
    w = world
    before = _tree(w["victim"])
    out, html = w["root"] / "s.json", w["root"] / "s.html"
    out.symlink_to(w["victim"] / "keep.txt")
    html.symlink_to(w["victim"] / "keep.txt")
    assert main(["summarize", str(w["job"]), "--out", str(out), "--html", str(html)]) == 1  # exists: refused
    assert "exists (use --force to overwrite)" in capsys.readouterr().err
    assert main(["summarize", str(w["job"]), "--out", str(out), "--html", str(html), "--force",
                 "--task-key", "field:task_id", "--group-by", "task"]) == 0
    capsys.readouterr()
    assert _tree(w["victim"]) == before  # task ids "../../escape", "/…/victim/named" are labels only
    assert not out.is_symlink() and not html.is_symlink() and b"escape" in out.read_bytes()
    assert sorted(p.name for p in w["root"].iterdir()) == ["job", "s.html", "s.json", "victim"]


def test_report_replaces_a_planted_link_never_its_victim(world, capsys):
    w = world
    verifier = w["job"] / "t1__0000000" / "verifier"
    (verifier / "report.html").symlink_to(w["victim"] / "keep.txt")
    other = w["root"] / "r.html"
    other.symlink_to(w["victim"] / "keep.txt")
    before = _tree(w["victim"])
    assert main(["report", str(verifier)]) == 0
    assert main(["report", str(verifier), "--out", str(other)]) == 1  # a link is no report page: refused
    assert other.is_symlink() and "use --force to overwrite" in capsys.readouterr().err
    assert main(["report", str(verifier), "--out", str(other), "--force"]) == 0
    capsys.readouterr()
    assert _tree(w["victim"]) == before
    assert not (verifier / "report.html").is_symlink() and not other.is_symlink()
    assert (verifier / "report.html").read_bytes().startswith(b"<!doctype html>")
