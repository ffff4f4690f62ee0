"""Trial 11 F9: a deck over the judge's size limits is refused with its true cause.

An honest deck whose stored video takes it past `sniff.MAX_UNCOMPRESSED_BYTES` (512 MiB), or
one with more than `sniff.MAX_ENTRIES` members, is ``too_large`` (a judged miss of the open
check, as before: no score changes) with a reason naming the size and the limit; only a
package that inflates past the ratio limit is a ``zip_bomb``. The limits are shrunk here
(a 2 MiB member stands for a 530 MiB video) so no test writes half a gigabyte.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from testkit import SIM_KEY, deck, make_ctx

from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.engine.router import route
from cowork_judge.evidence import sniff
from cowork_judge.evidence.sniff import sniff_deck
from cowork_judge.sim import OraclePolicy, SimServer

MINIMAL = "01__python-pptx__minimal.pptx"


def _with_members(members: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> bytes:
    """The minimal fixture deck plus `members` (stored by default: a video is not deflated)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(deck(MINIMAL)) as zin, zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info, zin.read(info.filename))
        for name, data in members.items():
            zout.writestr(zipfile.ZipInfo(name), data, compress_type=compression)
    return buf.getvalue()


def test_a_large_stored_deck_is_too_large_not_a_zip_bomb(tmp_path, monkeypatch):
    monkeypatch.setattr(sniff, "MAX_UNCOMPRESSED_BYTES", 1 << 20)  # 1 MiB stands for 512 MiB
    path = tmp_path / "deck.pptx"
    path.write_bytes(_with_members({"ppt/media/media1.mp4": os.urandom(2 << 20)}))
    res = sniff_deck(path)
    assert res.status == "too_large" and not res.openable
    assert "2.0 MiB uncompressed, over the judge's 1.0 MiB limit for a deck" in res.reason
    assert "not a zip bomb" in res.reason and "bomb:" not in res.reason


def test_a_deck_with_too_many_entries_is_too_large(tmp_path, monkeypatch):
    monkeypatch.setattr(sniff, "MAX_ENTRIES", 40)
    path = tmp_path / "deck.pptx"
    path.write_bytes(_with_members({f"ppt/media/image{n}.png": os.urandom(256) for n in range(60)}))
    res = sniff_deck(path)
    assert res.status == "too_large"
    assert f"{res.zip_entries} zip entries, over the judge's limit of 40 entries for a deck" in res.reason


def test_a_package_inflating_past_the_limit_from_small_members_stays_a_zip_bomb(tmp_path, monkeypatch):
    # every member under the ratio grace size (32 MiB), but the whole inflates ~1000:1 past the size limit
    monkeypatch.setattr(sniff, "MAX_UNCOMPRESSED_BYTES", 16 << 20)
    path = tmp_path / "deck.pptx"
    path.write_bytes(_with_members({f"ppt/media/blank{n}.bmp": b"\0" * (1 << 20) for n in range(40)},
                                   compression=zipfile.ZIP_DEFLATED))
    res = sniff_deck(path)
    assert res.status == "zip_bomb"
    assert "over the judge's 16 MiB limit for a deck" in res.reason and ":1 overall" in res.reason


def test_a_member_over_the_ratio_limit_stays_a_zip_bomb(tmp_path):
    path = tmp_path / "deck.pptx"
    path.write_bytes(_with_members({"ppt/big.xml": b"\0" * (40 << 20)}, compression=zipfile.ZIP_DEFLATED))
    res = sniff_deck(path)
    assert res.status == "zip_bomb" and "ppt/big.xml" in res.reason and "100:1" in res.reason


GATES = normalize_rubric([
    {"id": "L", "description": "one deck", "weight": 1, "judge_method": "code", "code_method_name": "locate_deck"},
    {"id": "O", "description": "it opens", "weight": 1, "judge_method": "code", "code_method_name": "check_deck_openable",
     "depends_on": ["L"]},
]).criteria


def test_the_open_check_is_a_judged_miss_that_names_the_size_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(sniff, "MAX_UNCOMPRESSED_BYTES", 1 << 20)
    v = route(GATES, make_ctx(tmp_path, {"deck.pptx": _with_members({"ppt/media/media1.mp4": os.urandom(2 << 20)})}))
    assert v["O"].judged and v["O"].hit is False  # the outcome is unchanged: a judged miss
    assert v["O"].reason.startswith("deck.pptx is too large for the judge to open: 2.0 MiB uncompressed, "
                                     "over the judge's 1.0 MiB limit for a deck (")
    assert "zip_bomb" not in v["O"].reason


WRAPPER = textwrap.dedent("""
    import sys
    from cowork_judge.commands import main
    from cowork_judge.evidence import sniff

    sniff.MAX_UNCOMPRESSED_BYTES = 1 << 20  # 1 MiB stands for 512 MiB: the run's documents are what is tested
    sys.exit(main(sys.argv[1:]))
""")


@pytest.mark.slow  # one whole run with the evidence layer (~5-15 s at load 3)
def test_a_run_on_a_deck_over_the_size_limit_says_so(tmp_path: Path):
    root = tmp_path / "inst"
    (root / "app" / "output").mkdir(parents=True)
    (root / "logs").mkdir()
    (root / "tests").mkdir()
    rows = [{"id": "C-LOCATE-DECK", "description": "A deck is delivered.", "weight": 1, "judge_method": "code",
             "code_method_name": "locate_deck"},
            {"id": "C-DECK-OPENABLE", "description": "The deck opens.", "weight": 1, "judge_method": "code",
             "code_method_name": "check_deck_openable", "depends_on": ["C-LOCATE-DECK"]},
            {"id": "V-LAYOUT-CLIPPED", "description": "Nothing on the slide is clipped.", "weight": 1,  # not gated:
             "type": "gradient", "levels": {"0": "clipped", "1": "nothing clipped"}, "judge_method": "workflow", "workflow_name": "ppt_judge", "workflow_group": "layout"}]
    (root / "tests" / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (root / "tests" / "task_prompt.md").write_text("Make a deck with the launch video.")
    (root / "app" / "output" / "deck.pptx").write_bytes(_with_members({"ppt/media/media1.mp4": os.urandom(2 << 20)}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    with SimServer(OraclePolicy({}), api_key=SIM_KEY) as sim:
        env.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=sim.url, JUDGE_START_JITTER="0")
        proc = subprocess.run([sys.executable, "-c", WRAPPER, "run", "--app-dir", str(root / "app"), "--logs-dir",
                               str(root / "logs"), "--tests-dir", str(root / "tests"), "--work-dir", str(root / "work")],
                              env=env, capture_output=True, text=True, timeout=300)
    result = root / "logs" / "verifier" / "result.json"
    assert result.is_file(), proc.stderr[-2000:]
    doc = json.loads(result.read_text())
    verdict = next(v for v in doc["results"] if v["id"] == "C-DECK-OPENABLE")
    assert verdict["judged"] and verdict["hit"] is False
    assert verdict["reason"].startswith("deck.pptx is too large for the judge to open: 2.0 MiB uncompressed, over "
                                        "the judge's 1.0 MiB limit for a deck (")
    visual = next(v for v in doc["results"] if v["id"] == "V-LAYOUT-CLIPPED")  # ppt_judge says it in its words
    assert visual["judged"] and visual["level"] == 0 and "the deck is too large for the judge to render (too_large: " in visual["reason"]
    assert "zip_bomb" not in json.dumps(doc) and "broken" not in visual["reason"]
