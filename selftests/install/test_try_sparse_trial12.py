"""Trial 12 F10: ``try`` copied a rollout's sparse file densely into its temp folder (a 1 GiB
sparse file took 1.1 GB of /tmp). The staged copy now keeps the holes: same size, same bytes,
about the blocks of the data it holds — in a copied folder and as a single placed file."""

from __future__ import annotations

import os

import pytest

from cowork_judge.install import dryrun
from install.test_try import make_task

GIB = 1 << 30
MIB = 1 << 20


def _sparse(path, size: int, data: dict[int, bytes]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.truncate(size)
        for offset, chunk in data.items():
            f.seek(offset)
            f.write(chunk)


def _on_disk(path) -> int:
    return os.stat(path).st_blocks * 512


def _same(a, b, offsets) -> bool:
    with open(a, "rb") as fa, open(b, "rb") as fb:
        for offset in offsets:
            fa.seek(offset)
            fb.seek(offset)
            if fa.read(MIB) != fb.read(MIB):
                return False
    return os.path.getsize(a) == os.path.getsize(b)


def test_a_sparse_file_in_a_rollout_is_staged_sparse(tmp_path):
    rollout = tmp_path / "rollout"
    data = {0: b"PK\x03\x04head", 300 * MIB + 5: b"middle" * 1000, GIB - 4: b"tail"}
    _sparse(rollout / "app" / "output" / "data.bin", GIB, data)
    (rollout / "app" / "output" / "deck.pptx").write_bytes(b"deck")
    _sparse(rollout / "logs" / "agent" / "trajectory.json", 256 * MIB, {0: b"{}"})  # a single placed file
    if _on_disk(rollout / "app" / "output" / "data.bin") > 16 * MIB:
        pytest.skip("this file system does not keep sparse files")
    task = dryrun.read_task(make_task(tmp_path))  # separate: /app/output (a folder) and trajectory.json (a file)
    staged = dryrun.stage(task, dryrun.read_rollout(rollout), tmp_path / "out")
    big = staged.app / "output" / "data.bin"
    assert os.path.getsize(big) == GIB and _on_disk(big) < 16 * MIB, _on_disk(big)
    assert _same(rollout / "app" / "output" / "data.bin", big, [0, *data, 500 * MIB, GIB - MIB])
    assert (staged.app / "output" / "deck.pptx").read_bytes() == b"deck"
    traj = staged.logs / "agent" / "trajectory.json"
    assert os.path.getsize(traj) == 256 * MIB and _on_disk(traj) < 16 * MIB
    assert traj.read_bytes()[:2] == b"{}"


def test_copy_sparse_copies_dense_files_and_zero_runs_exactly(tmp_path):
    from cowork_judge._util.fsutil import copy_sparse

    dense = tmp_path / "dense.bin"
    payload = os.urandom(3 * MIB + 7) + bytes(2 * MIB) + b"end"
    dense.write_bytes(payload)
    copy_sparse(dense, tmp_path / "copy.bin")
    assert (tmp_path / "copy.bin").read_bytes() == payload
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    copy_sparse(empty, tmp_path / "empty-copy")
    assert (tmp_path / "empty-copy").read_bytes() == b""
    os.chmod(dense, 0o640)
    copy_sparse(dense, tmp_path / "mode.bin")
    assert os.stat(tmp_path / "mode.bin").st_mode & 0o777 == 0o640
