"""`fsutil.atomic_write`: the one atomic write every document of the package goes through."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from cowork_judge._util import fsutil


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_writes_whole_text_bytes_untranslated_with_the_collectors_mode(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "er" / "doc.json"
    assert fsutil.atomic_write(target, "a\r\nb\nü") == target
    assert target.read_bytes() == "a\r\nb\nü".encode()
    assert _mode(target) == fsutil.FILE_MODE
    fsutil.atomic_write(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    assert [p.name for p in target.parent.iterdir()] == ["doc.json"]  # no temp file left


def test_explicit_and_kept_modes(tmp_path: Path) -> None:
    script = fsutil.atomic_write(tmp_path / "test.sh", "#!/bin/sh\n", mode=0o755)
    assert _mode(script) == 0o755
    os.chmod(script, 0o700)
    fsutil.atomic_write(script, "#!/bin/sh\necho\n", keep_mode=True)
    assert _mode(script) == 0o700
    fresh = fsutil.atomic_write(tmp_path / "fresh.json", "{}", keep_mode=True)  # nothing to keep: the default
    assert _mode(fresh) == fsutil.FILE_MODE


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = fsutil.atomic_write(tmp_path / "reward.txt", "0.5")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fsutil.os, "replace", broken_replace)
    with pytest.raises(OSError, match="No space"):
        fsutil.atomic_write(target, "1.0")
    assert target.read_text() == "0.5"
    assert [p.name for p in tmp_path.iterdir()] == ["reward.txt"]


@pytest.mark.parametrize("name, problem", [
    ("task-1", None), ("été 2026", None), ("a.b", None), ("x" * 255, None),
    ("/abs", "is an absolute path"), ("../x", "contains '/'"), ("a\\b", "contains '\\'"), (".", "is '.'"),
    ("..", "is '..'"), ("", "is empty"), ("a\x00b", "control character"), ("a\tb", "control character"),
    (" a", "whitespace"), ("x" * 256, "256 bytes long"), ("é" * 128, "256 bytes long"), ("\udc80", "lone surrogate"),
    (3, "is not a string (int)"), (None, "is not a string (NoneType)"),
    ("a\u202eb", "bidirectional control U+202E"), ("x\u2066y\u2069", "U+2066"), ("a\u200fb", "U+200F"),
    ("\U0001F469\u200d\U0001F52C", None),  # a zero-width joiner inside an emoji is a plain name
])
def test_plain_name_problem(name: object, problem: str | None) -> None:
    got = fsutil.plain_name_problem(name)
    assert got is None if problem is None else (got is not None and problem in got)


def test_inside_follows_every_link(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "a").mkdir(parents=True)
    outside.mkdir()
    (root / "out").symlink_to(outside)
    (root / "back").symlink_to(root / "a")
    assert fsutil.inside(root / "a" / "new.json", root) and fsutil.inside(root, root)
    assert fsutil.inside(root / "back" / "x", root)
    assert not fsutil.inside(root / "out" / "x", root) and not fsutil.inside(root / ".." / "root2", root)
    assert not fsutil.inside(tmp_path / "rootx", root)  # a sibling sharing the prefix


@pytest.mark.parametrize("name, shown", [
    ("a\\b", "'a\\b'"), ("chat1", "'chat1'"), ("line\nbreak", "'line\\nbreak'"), ("a\x00b", "'a\\x00b'"),
    ("\udc80", "'\\udc80'"), ("été", "'été'"), (7, "'7'"),
])
def test_quoted_shows_a_name_once_escaped(name: object, shown: str) -> None:
    """Trial finding 15d: a backslash in a name was shown doubled (repr); control characters stay escaped."""
    assert fsutil.quoted(name) == shown
    assert fsutil.plain_name_problem("a\\b") == "contains '\\' (a path, not a name)"


def test_walk_following_links_follows_links_to_folders_once_and_ends_loops(tmp_path):
    """Trial 6 F8: a folder of links to instances or trials is walked like the folders; a loop,
    a link to a parent or to ``/``, and a second link to one folder are walked no further."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (outside / "trial" / "verifier").mkdir(parents=True)
    (root / "real").mkdir(parents=True)
    (root / "a").symlink_to(outside / "trial")
    (root / "b").symlink_to(outside / "trial")      # the same folder again
    (root / "real" / "loop").symlink_to(root)       # a loop
    (root / "up").symlink_to(tmp_path)              # a parent of root: would walk root again
    (root / "slash").symlink_to("/")
    repeats: dict[str, str] = {}
    walked = [os.path.relpath(d, root) for d, dirnames, _ in fsutil.walk_following_links(root, repeats)
              if not dirnames.sort()]
    assert walked == [".", "a", "a/verifier", "real"], walked
    assert repeats == {str(root / "b"): str(root / "a")}  # loop, up and slash hold root: never entered
